// Every lane reads the same address (stride 0): a broadcast, scored 0.2.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void addBias(const float *bias, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] += bias[blockIdx.y];
}
// CHECK: kernel addBias
// CHECK: global load bias[blockIdx.y] stride 0 score 0.2
// CHECK: global load out[i] stride 1 score 1
// CHECK: global store out[i] stride 1 score 1
