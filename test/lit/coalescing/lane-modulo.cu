// threadIdx.x % 32 keeps the lane (stride 1); threadIdx.x / 32 is the warp,
// the same for all lanes of a warp (stride 0).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void perWarp(const float *in, float *out, int ld) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  out[warp * ld + lane] = in[warp];
}
// CHECK: kernel perWarp
// CHECK: global load in[warp] stride 0 score 0.2
// CHECK: global store out[warp * ld + lane] stride 1 score 1
