// threadIdx.x & 31 and threadIdx.x >> 5 are the same idioms written with bits.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void perWarpBits(const float *in, float *out) {
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  out[(warp << 5) + lane] = in[warp];
}
// CHECK: kernel perWarpBits
// CHECK: global load in[warp] stride 0
// CHECK: global store out[(warp << 5) + lane] stride 1
