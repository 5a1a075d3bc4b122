// ops counts floating-point arithmetic (index arithmetic excluded); gmem the
// bytes moved per thread; ai = ops / gmem. Here: 2 flops, 12 bytes.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void axpy(float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i] + y[i];
}
// CHECK: kernel axpy
// CHECK-NEXT: coal=1 ai=0.166667 {{.*}} gmem=12 ops=2
