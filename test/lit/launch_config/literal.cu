// <<<grid, block>>> from integer literals.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }

void run(float *x) { k<<<64, 256>>>(x); }
// CHECK: kernel k
// CHECK: tpb=256
// CHECK: launch: tpb=256 (launch), occupancy 1 on sm_90 (limited by warps), launched 1x
// CHECK: k<<<64, 256>>> grid=64 tpb=256 shared=0
