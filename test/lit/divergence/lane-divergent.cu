// Odd and even lanes take different paths: lane-divergent, div = 1.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void oddEven(float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x % 2 == 0)
    x[i] = 1.0f;
  else
    x[i] = -1.0f;
}
// CHECK: kernel oddEven
// CHECK-NEXT: {{.*}} div=1 {{.*}}
// CHECK: branch if (threadIdx.x % 2 == 0) lane_divergent
