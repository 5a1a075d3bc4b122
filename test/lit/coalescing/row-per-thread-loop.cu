// One row per thread inside a loop: A[row * K + k] has stride K (the row
// length parameter) across threadIdx.x; the loop weight is 8.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void rowSums(const float *A, float *sums, int rows, int K) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k)
    sum += A[row * K + k];
  sums[row] = sum;
}
// CHECK: kernel rowSums
// CHECK: global load A[row * K + k] stride K score -0.5
// CHECK: global store sums[row] stride 1 score 1
// CHECK: branch if (row >= rows) guard
// CHECK: branch for (k < K) uniform
