// Block size from a constexpr variable and a const local.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

constexpr int kBlock = 128;

__global__ void k(float *x) { x[threadIdx.x] = 1; }

void run(float *x) {
  const int blocks = 1024 / kBlock;
  k<<<blocks, kBlock>>>(x);
}
// CHECK: kernel k
// CHECK: tpb=128
// CHECK: k<<<blocks, kBlock>>> grid=8 tpb=128
