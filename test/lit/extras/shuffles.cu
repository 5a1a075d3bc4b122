// Warp-shuffle reduction: shuffles counted, the unrolled loop's pragma too.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__device__ float warpSum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void rowSum(const float *in, float *out) {
  float v = warpSum(in[blockIdx.x * 32 + threadIdx.x]);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}
// CHECK: kernel rowSum
// CHECK: global load in[blockIdx.x * 32 + threadIdx.x] stride 1
// CHECK: branch for (offset > 0) uniform
// CHECK: extras: {{.*}} shuffles=1 {{.*}} unroll=1
