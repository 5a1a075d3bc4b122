// if (i < n) on the global index is a bounds guard: reported, not divergent.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void guarded(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 0.0f;
}
// CHECK: kernel guarded
// CHECK-NEXT: {{.*}} div=0 
// CHECK: branch if (i < n) guard
