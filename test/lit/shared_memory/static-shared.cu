// Static shared arrays: bytes summed per kernel.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void twoBuffers(float *x) {
  __shared__ float a[256];
  __shared__ double b[32];
  a[threadIdx.x] = x[threadIdx.x];
  b[threadIdx.x % 32] = a[threadIdx.x];
  x[threadIdx.x] = (float)b[threadIdx.x % 32];
}
// CHECK: kernel twoBuffers
// CHECK: shared: 1280 B static, worst bank conflict 1-way
// CHECK: shared array a float[256] 1024 B
// CHECK: shared array b double[32] 256 B
