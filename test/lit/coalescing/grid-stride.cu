// Grid-stride loop: i = global index + k * (blockDim.x * gridDim.x); stride 1,
// the loop condition is a bounds guard, and the idiom is counted.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void saxpy(float a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
// CHECK: kernel saxpy
// CHECK-NEXT: coal=1 {{.*}} div=0
// CHECK: global load x[i] stride 1
// CHECK: branch for (i < n) guard
// CHECK: grid_stride=1
