// Every test or use, in the analysed file, of a macro that Clang's host pass
// (what the report reads) and nvcc's device pass (what runs) answer
// differently is listed with its line: __CUDA_ARCH__ as a side branch, the
// compiler's own (reserved) names as compiler branches, through an alias and
// through a name pasted in a condition (the pasting, and the reserved half
// as written); __CUDACC__, which both define, and the file's own macros are
// not.
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

#define BLOCK 256
#define ON_DEVICE __CUDA_ARCH__
#define JOIN(a, b) a##b

__global__ void k(float *x) {
#if ON_DEVICE >= 800
  x[threadIdx.x] = 1;
#endif
#if defined(__clang__)
  x[threadIdx.x] = 2;
#elif __CUDACC_VER_MAJOR__ >= 12
  x[threadIdx.x] = 3;
#endif
#ifdef __NVCC__
  x[threadIdx.x] = 4;
#endif
#if JOIN(__NV, CC__)
  x[threadIdx.x] = 5;
#endif
#if defined(__CUDACC__) && BLOCK > 128
  x[threadIdx.x] = 6;
#endif
}

// CHECK:      "compiler_branches": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "macro": "__CUDA_ARCH__",
// CHECK-NEXT:     "line": 16,
// CHECK-NEXT:     "side": true
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "macro": "__clang__",
// CHECK-NEXT:     "line": 19,
// CHECK-NEXT:     "side": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "macro": "__CUDACC_VER_MAJOR__",
// CHECK-NEXT:     "line": 21,
// CHECK-NEXT:     "side": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "macro": "__NVCC__",
// CHECK-NEXT:     "line": 24,
// CHECK-NEXT:     "side": false
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "macro": "##",
// CHECK-NEXT:     "line": 27,
// CHECK-NEXT:     "side": false
// CHECK-NEXT:   }
