// reuse: shared loads per global load, loop-weighted. A sum over a staged
// tile reads shared memory in a loop (weight 8: the analysis's weight of a
// loop level) after one global load: reuse 8. Reading global memory
// directly has no reuse; the file pools: 8 / (1 + 8).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void staged(const float *a, float *out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = a[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  float sum = 0;
  for (int k = 0; k < 16; ++k)
    sum += tile[(threadIdx.x + k) % 256];
  out[blockIdx.x * 256 + threadIdx.x] = sum;
}

__global__ void direct(const float *a, float *out) {
  float sum = 0;
  for (int k = 0; k < 16; ++k)
    sum += a[blockIdx.x * 256 + threadIdx.x + k];
  out[blockIdx.x * 256 + threadIdx.x] = sum;
}
// CHECK: kernel staged
// CHECK: extended: bank=1 vec=4 reuse=8 
// CHECK: kernel direct
// CHECK: extended: bank=1 vec=4 reuse=0 
// CHECK: translation unit:
// CHECK: extended: bank=1 vec=4 reuse=0.888889 
