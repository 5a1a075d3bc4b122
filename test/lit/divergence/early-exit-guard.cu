// The early-exit form of a bounds guard, on a 2-D index.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void early(float *x, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (c >= cols || r >= rows)
    return;
  x[r * cols + c] = 1.0f;
}
// CHECK: kernel early
// CHECK-NEXT: {{.*}} div=0 {{.*}}
// CHECK: branch if (c >= cols || r >= rows) guard
