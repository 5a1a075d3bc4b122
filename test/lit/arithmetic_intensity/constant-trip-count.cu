// A loop with a constant trip count multiplies its body: 16 iterations of
// one load (4 bytes) and one fma-like multiply-add (2 flops).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void dot16(const float *x, float *out) {
  float acc = 0.0f;
  for (int k = 0; k < 16; ++k)
    acc += x[k * 32 + threadIdx.x] * 2.0f;
  out[threadIdx.x] = acc;
}
// CHECK: kernel dot16
// CHECK-NEXT: {{.*}} gmem=68 ops=32
