// A local written after its initialisation is not trusted as a constant.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 0; }

void run(float *x, bool big) {
  int threads = 128;
  if (big)
    threads = 1024;
  k<<<1, threads>>>(x);
}
// CHECK: kernel k
// CHECK: tpb=0
// CHECK: k<<<1, threads>>> grid=1 tpb=?
