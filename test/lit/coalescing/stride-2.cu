// Constant stride 2 across threadIdx.x scores 0.4 (CudaPerf's map).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void strided2(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * 2];
}
// CHECK: kernel strided2
// CHECK: global load in[i * 2] stride 2 score 0.4
// CHECK: global store out[i] stride 1 score 1
