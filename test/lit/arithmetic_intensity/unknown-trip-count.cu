// An unknown trip count uses the documented default of 8.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void sumN(const float *x, float *out, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += x[k];
  out[threadIdx.x] = acc;
}
// CHECK: kernel sumN
// CHECK-NEXT: ai=0.222222 {{.*}} gmem=36 ops=8
