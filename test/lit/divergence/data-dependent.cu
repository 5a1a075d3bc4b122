// A condition on a value loaded per lane is lane-divergent; the ternary and the
// while loop are branches too.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void clampAndIterate(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  v = v > 0.0f ? v : 0.0f;
  while (v > 1.0f)
    v *= 0.5f;
  out[i] = v;
}
// CHECK: kernel clampAndIterate
// CHECK: branch if (i >= n) guard
// CHECK: branch conditional (v > 0.0f) lane_divergent
// CHECK: branch while (v > 1.0f) lane_divergent
