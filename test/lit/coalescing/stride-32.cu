// Constant stride 32 across threadIdx.x scores -0.5 (CudaPerf's map).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void strided32(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * 32];
}
// CHECK: kernel strided32
// CHECK: global load in[i * 32] stride 32 score -0.5
// CHECK: global store out[i] stride 1 score 1
