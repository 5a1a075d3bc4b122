// Accesses inside __device__ helpers are analysed with the caller's values.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__device__ float loadAt(const float *base, int row, int col, int ld) { return base[row * ld + col]; }

__global__ void useHelper(const float *m, float *out, int ld) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  out[col] = loadAt(m, blockIdx.y, col, ld) + loadAt(m, col, blockIdx.y, ld);
}
// CHECK: kernel useHelper
// CHECK: global load base[row * ld + col] stride 1 score 1
// CHECK: global load base[row * ld + col] stride ld score -0.5
