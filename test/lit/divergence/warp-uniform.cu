// A condition on the warp index (threadIdx.x / 32) is the same for all lanes
// of a warp: warp_uniform, not counted in div.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void perWarpRole(float *x) {
  int warp = threadIdx.x / 32;
  if (warp == 0)
    x[threadIdx.x] = 1.0f;
}
// CHECK: kernel perWarpRole
// CHECK-NEXT: {{.*}} div=0 {{.*}}
// CHECK: branch if (warp == 0) warp_uniform
