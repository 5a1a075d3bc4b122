// Naive transpose: the read is coalesced, the write has stride 'height'.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-verify %s
#include "cuda.h"

__global__ void transposeNaive(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    out[x * height + y] = in[y * width + x]; // expected-warning {{global store to 'out' has stride height elements across threadIdx.x: uncoalesced}}
}
// CHECK: kernel transposeNaive
// CHECK-NEXT: coal=0.25
// CHECK: global load in[y * width + x] stride 1 score 1
// CHECK: global store out[x * height + y] stride height score -0.5
