// Real intrinsics from the CUDA 13 headers: __shfl_down_sync, __ldg, float4.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s | FileCheck %s
#include <cuda_runtime.h>

__global__ void sumRows(const float4 *__restrict__ rows, float *out, int n4) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n4; i += blockDim.x) {
    float4 v = __ldg(&rows[blockIdx.x * n4 + i]);
    acc += v.x + v.y + v.z + v.w;
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(&out[blockIdx.x], acc);
}
// CHECK: kernel sumRows
// CHECK: global load __ldg(&rows[blockIdx.x * n4 + i]) stride 1 score 1 vector
// CHECK: branch for (i < n4) guard
// CHECK: atomic atomicAdd global
// CHECK: extras: vectorized=1 ldg=1 restrict=1 shuffles=1
