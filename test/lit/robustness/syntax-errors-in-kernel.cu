// Broken statements inside a kernel do not crash the analysis; the kernel and
// its intact neighbours are still reported.
// RUN: %cudaperf-text %s > %t.out 2> %t.err || true
// RUN: FileCheck %s < %t.out
#include "cuda.h"

__global__ void broken(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += ) {
    x[i] = x[i +] * ;
  }
  x[threadIdx.x] = undefined_thing(x);
}

__global__ void fine(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 0; }
// CHECK: compiler error(s) in this file
// CHECK: kernel broken
// CHECK: kernel fine
// CHECK-NEXT: coal=1
