// __launch_bounds__ gives tpb when no launch is visible.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void __launch_bounds__(256, 2) bounded(float *x) { x[threadIdx.x] = 1; }
// CHECK: kernel bounded
// CHECK: occ=1 {{.*}} tpb=256
// CHECK: launch: tpb=256 (launch_bounds)
// CHECK: launch_bounds: max 256 min 2
