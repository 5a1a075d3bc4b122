// A guard on an index whose lane coefficient is a parameter (chunked loops)
// is still a bounds guard.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void chunked(float *x, int n, int chunk) {
  int start = (blockIdx.x * blockDim.x + threadIdx.x) * chunk;
  for (int k = 0; k < chunk; ++k) {
    int i = start + k;
    if (i < n)
      x[i] = 0.0f;
  }
}
// CHECK: kernel chunked
// CHECK-NEXT: {{.*}} div=0 {{.*}}
// CHECK: global store x[i] stride chunk score -0.5
// CHECK: branch if (i < n) guard
