// reinterpret_cast of a float pointer to float4: the access moves 16 bytes.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void copyVec(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  reinterpret_cast<float4 *>(out)[i] = reinterpret_cast<const float4 *>(in)[i];
}
// CHECK: kernel copyVec
// CHECK: global load reinterpret_cast<const float4 *>(in)[i] stride 1 score 1 vector
// CHECK: global store reinterpret_cast<float4 *>(out)[i] stride 1 score 1 vector
