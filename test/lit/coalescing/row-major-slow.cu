// threadIdx.x on the slow (row) dimension: stride is the row length, a
// parameter, so symbolic and scored as > 4 (-0.5).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void copy2dT(const float *in, float *out, int width, int height) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < height && col < width)
    out[row * width + col] = in[row * width + col];
}
// CHECK: kernel copy2dT
// CHECK-NEXT: coal=-0.5
// CHECK: global load in[row * width + col] stride width score -0.5
// CHECK: global store out[row * width + col] stride width score -0.5
