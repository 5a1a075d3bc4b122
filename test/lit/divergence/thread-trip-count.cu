// A loop whose trip count depends on threadIdx.x diverges inside the warp.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void triangle(const float *in, float *out) {
  float sum = 0.0f;
  for (int j = 0; j < threadIdx.x; ++j)
    sum += in[j];
  out[threadIdx.x] = sum;
}
// CHECK: kernel triangle
// CHECK-NEXT: {{.*}} div=1 {{.*}}
// CHECK: global load in[j] stride 0
// CHECK: branch for (j < threadIdx.x) lane_divergent
