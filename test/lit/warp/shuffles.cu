// warp: warp shuffle sites (__shfl*_sync, cg shfl*, cg::reduce; a vote such
// as __ballot_sync is not one); a tree over shared memory has none.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void warpSum(const float *x, float *out) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  unsigned any = __ballot_sync(0xffffffff, v > 0);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v + any;
}

__global__ void sharedSum(const float *x, float *out) {
  __shared__ float s[32];
  s[threadIdx.x] = x[blockIdx.x * 32 + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) {
    __syncthreads();
    if (threadIdx.x < offset)
      s[threadIdx.x] += s[threadIdx.x + offset];
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}
// CHECK: kernel warpSum
// CHECK: extended: {{.*}} warp=1 
// CHECK: kernel sharedSum
// CHECK: extended: {{.*}} warp=0 
// CHECK: translation unit:
// CHECK: extended: {{.*}} warp=1 
