// Stride 2 in 4-byte words: lanes 0 and 16 share a bank, a 2-way conflict.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void evens(float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = 1.0f;
  s[threadIdx.x + 32] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = s[2 * threadIdx.x];
}
// CHECK: kernel evens
// CHECK: shared load s[2 * threadIdx.x] stride 2 bank 2-way
