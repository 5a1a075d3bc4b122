// div weighs each branch by 8^loop_depth: one divergent branch inside a loop
// (weight 8) and one uniform loop (weight 1) give div = 8 / 9.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void weighted(float *x, int iterations) {
  for (int k = 0; k < iterations; ++k)
    if (threadIdx.x & 1)
      x[threadIdx.x] += 1.0f;
}
// CHECK: kernel weighted
// CHECK-NEXT: {{.*}} div=0.888889 {{.*}}
