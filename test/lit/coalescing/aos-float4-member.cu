// p[i].y on a 16-byte struct: the hardware sees 16 bytes between lanes, which
// is stride 4 in floats.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void readY(const float4 *p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p[i].y;
}
// CHECK: kernel readY
// CHECK: global load p[i].y stride 4 score 0.1
// CHECK: extras: vectorized=0
