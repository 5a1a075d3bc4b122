// Conditions on parameters and blockIdx do not depend on the thread: uniform.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void modeSwitch(float *x, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode == 1)
    x[i] = 1.0f;
  if (blockIdx.x == 0)
    x[i] += 1.0f;
}
// CHECK: kernel modeSwitch
// CHECK-NEXT: {{.*}} div=0 {{.*}}
// CHECK: branch if (mode == 1) uniform
// CHECK: branch if (blockIdx.x == 0) uniform
