// dim3 locals, including a 2-D block: tpb = 16 * 16.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void k2d(float *x, int w) { x[(blockIdx.y * 16 + threadIdx.y) * w + blockIdx.x * 16 + threadIdx.x] = 0; }

void run(float *x, int w) {
  dim3 block(16, 16);
  dim3 grid(8, 4);
  k2d<<<grid, block>>>(x, w);
}
// CHECK: kernel k2d
// CHECK: tpb=256
// CHECK: k2d<<<grid, block>>> grid=32 tpb=256
