// switch on the lane is a lane-divergent branch.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void byLane(float *x) {
  switch (threadIdx.x & 3) {
  case 0:
    x[threadIdx.x] = 0.0f;
    break;
  default:
    x[threadIdx.x] = 1.0f;
  }
}
// CHECK: kernel byLane
// CHECK: branch switch (threadIdx.x & 3) lane_divergent
