// A whole float4 per lane: stride 1 in 16-byte units, coalesced and vectorized.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void copy4(const float4 *in, float4 *out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = in[i];
    out[i] = v;
  }
}
// CHECK: kernel copy4
// CHECK: coal=1
// CHECK: global load in[i] stride 1 score 1 vector
// CHECK: global store out[i] stride 1 score 1 vector
// CHECK: extras: vectorized=2
