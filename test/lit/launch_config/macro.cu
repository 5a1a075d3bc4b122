// Block size from a macro.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"
#define THREADS 512
#define BLOCKS(n) (((n) + THREADS - 1) / THREADS)

__global__ void k(float *x) { x[blockIdx.x * THREADS + threadIdx.x] = 1; }

void run(float *x) { k<<<BLOCKS(4096), THREADS>>>(x); }
// CHECK: kernel k
// CHECK: occ=0.4 {{.*}} tpb=512
// CHECK: k<<<BLOCKS(4096), THREADS>>> grid=8 tpb=512
