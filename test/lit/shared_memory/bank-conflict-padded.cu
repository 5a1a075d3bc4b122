// The same column read on a tile padded to 33 columns: conflict-free.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-verify %s
// expected-no-diagnostics
#include "cuda.h"

__global__ void columnPadded(float *out) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
// CHECK: kernel columnPadded
// CHECK: worst bank conflict 1-way
// CHECK: shared load tile[threadIdx.x][threadIdx.y] stride 33 bank 1-way
