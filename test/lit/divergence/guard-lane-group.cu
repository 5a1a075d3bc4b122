// A row per 8 lanes: `row = i / 8` compared with the row count is a bounds
// guard like `i < n` (only the last, partial rows diverge); a branch on the
// lane within the group (`i % 8 == 0`) is divergent.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void rowPerGroup(const float *x, float *y, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int row = i / 8;
  if (row >= rows)
    return;
  float v = x[row * 8 + i % 8];
  if (i % 8 == 0)
    y[row] = v;
}
// CHECK: kernel rowPerGroup
// CHECK-NEXT: {{.*}} div=0.5 
// CHECK-DAG: branch if (row >= rows) guard
// CHECK-DAG: branch if (i % 8 == 0) lane_divergent
