// An atomic in a loop: static count 1, loop-weighted count in extras (JSON).
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

__global__ void accumulate(const float *in, float *total, int chunks) {
  for (int c = 0; c < 4; ++c)
    atomicAdd(total, in[c * 256 + threadIdx.x]);
}
// CHECK: "name": "accumulate"
// CHECK: "atomics": 1,
// CHECK: "kind": "atomic"
// CHECK: "stride": 0,
// CHECK: "loop_weighted_atomics": 4
