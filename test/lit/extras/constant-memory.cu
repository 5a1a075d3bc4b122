// __constant__ reads are counted apart, not as global accesses.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__constant__ float coefficients[16];

__global__ void poly(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = coefficients[0] + coefficients[1] * x[i];
}
// CHECK: kernel poly
// CHECK-NEXT: {{.*}} gmem=8 ops=2
// CHECK: constant=2
