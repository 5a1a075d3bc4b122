// Math calls count one op each, fmaf two.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void gelu(const float *x, float *y) {
  float v = x[threadIdx.x];
  y[threadIdx.x] = fmaf(v, tanhf(v), expf(v));
}
// CHECK: kernel gelu
// CHECK-NEXT: {{.*}} gmem=8 ops=4
