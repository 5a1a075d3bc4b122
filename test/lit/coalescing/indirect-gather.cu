// An index loaded from memory: the stride is unknown (score 0), never
// silently coalesced.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void gather(const float *values, const int *index, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = values[index[i]];
}
// CHECK: kernel gather
// CHECK: global load index[i] stride 1 score 1
// CHECK: global load values[index[i]] stride unknown score 0
// CHECK: global store out[i] stride 1 score 1
