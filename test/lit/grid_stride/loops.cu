// grid_stride: loops stepping by the grid's size in threads.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void strided(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] *= 2;
}

__global__ void oneEach(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2;
}
// CHECK: kernel strided
// CHECK: extended: {{.*}} grid_stride=1
// CHECK: kernel oneEach
// CHECK: extended: {{.*}} grid_stride=0
