// Global index blockIdx.x * blockDim.x + threadIdx.x: stride 1, score 1.0.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}
// CHECK: kernel scale
// CHECK-NEXT: coal=1 {{.*}} div=0
// CHECK: global load in[i] stride 1 score 1 @{{.*}}coalesced-1d.cu:8:21
// CHECK: global store out[i] stride 1 score 1 @{{.*}}coalesced-1d.cu:8:5
