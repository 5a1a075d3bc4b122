// cudaDeviceSynchronize inside a loop that launches the kernel.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void tick(float *x) { x[threadIdx.x] += 1; }

void run(float *x) {
  for (int i = 0; i < 100; ++i) {
    tick<<<1, 128>>>(x);
    cudaDeviceSynchronize();
  }
}
// CHECK: kernel tick
// CHECK: device_sync_in_loops=1
// CHECK: tick<<<1, 128>>> grid=1 tpb=128 shared=0 (in loop)
