// Constant stride 4 across threadIdx.x scores 0.1 (CudaPerf's map).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void strided4(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * 4];
}
// CHECK: kernel strided4
// CHECK: global load in[i * 4] stride 4 score 0.1
// CHECK: global store out[i] stride 1 score 1
