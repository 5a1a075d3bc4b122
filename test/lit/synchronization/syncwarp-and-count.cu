// __syncwarp and __syncthreads_count are barriers too; __syncwarp in divergent
// code is legal (it takes a mask) and is not warned about.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-verify %s
// expected-no-diagnostics
#include "cuda.h"

__global__ void warpSteps(const int *flags, int *out) {
  int lane = threadIdx.x % 32;
  if (lane < 16)
    __syncwarp(0xffff);
  int count = __syncthreads_count(flags[threadIdx.x]);
  out[threadIdx.x] = count;
}
// CHECK: kernel warpSteps
// CHECK: sync=2
// CHECK: sync __syncwarp thread-dependent
// CHECK: sync __syncthreads_count @
