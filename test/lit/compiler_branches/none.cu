// A file that tests only its own macros and __CUDACC__ has no compiler
// branches, and the mock cuda.h's own tests of __CUDA_ARCH__ (a header, not
// the analysed file) do not count.
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

#ifndef TILE
#define TILE 32
#endif
#ifdef __CUDACC__
__global__ void k(float *x) { x[threadIdx.x * TILE] = 0; }
#endif

// CHECK: "compiler_branches": []
// CHECK-NOT: "device_pass"
