// All lanes read one shared word: a broadcast, no conflict.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void broadcastShared(float *out) {
  __shared__ float scale;
  if (threadIdx.x == 0)
    scale = out[0];
  __syncthreads();
  out[threadIdx.x + 1] *= scale;
}
// CHECK: kernel broadcastShared
// CHECK: shared store scale stride 0 bank 1-way
// CHECK: shared load scale stride 0 bank 1-way
