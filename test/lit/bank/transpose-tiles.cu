// bank: access-weighted conflict ways over shared accesses. The unpadded
// transpose tile reads a column (stride 32 words: 32-way) and writes a row
// (1-way): (1 + 32) / 2 = 16.5; padded to 33 columns both are 1-way.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"
#define T 32

__global__ void unpadded(const float *in, float *out, int n) {
  __shared__ float tile[T][T];
  tile[threadIdx.y][threadIdx.x] = in[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x];
  __syncthreads();
  out[(blockIdx.x * T + threadIdx.y) * n + blockIdx.y * T + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void padded(const float *in, float *out, int n) {
  __shared__ float tile[T][T + 1];
  tile[threadIdx.y][threadIdx.x] = in[(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x];
  __syncthreads();
  out[(blockIdx.x * T + threadIdx.y) * n + blockIdx.y * T + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void noShared(float *x) { x[threadIdx.x] = 0; }
// CHECK: kernel unpadded
// CHECK: extended: bank=16.5
// CHECK: kernel padded
// CHECK: extended: bank=1 
// CHECK: kernel noShared
// CHECK: extended: bank=1 
// CHECK: translation unit:
// CHECK: extended: bank=8.75 
