// Integer arithmetic on loaded data counts (a histogram's bin computation);
// integer index arithmetic does not.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void binOf(const int *values, int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bins[i] = (values[i] >> 4) & 15;
}
// CHECK: kernel binOf
// CHECK-NEXT: {{.*}} gmem=8 ops=2
