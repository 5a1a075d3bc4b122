// 2-D row-major with threadIdx.x on the fast (column) dimension: coalesced.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void copy2d(const float *in, float *out, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < height && col < width)
    out[row * width + col] = in[row * width + col];
}
// CHECK: kernel copy2d
// CHECK: coal=1
// CHECK: global load in[row * width + col] stride 1 score 1
// CHECK: global store out[row * width + col] stride 1 score 1
// CHECK: branch if (row < height && col < width) guard
