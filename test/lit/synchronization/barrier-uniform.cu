// Barriers in uniform control flow (a tiled loop) are fine: no warning.
// RUN: %cudaperf-verify %s
// RUN: %cudaperf-text %s | FileCheck %s
// expected-no-diagnostics
#include "cuda.h"

__global__ void tiles(const float *in, float *out, int tiles) {
  __shared__ float s[128];
  float acc = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    s[threadIdx.x] = in[t * 128 + threadIdx.x];
    __syncthreads();
    acc += s[(threadIdx.x + 1) % 128];
    __syncthreads();
  }
  out[blockIdx.x * 128 + threadIdx.x] = acc;
}
// CHECK: kernel tiles
// CHECK: sync=2
// CHECK: sync __syncthreads @
// CHECK: sync __syncthreads @
