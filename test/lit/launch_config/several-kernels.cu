// Several kernels in one file, each with its own launch; the TU counts them.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void first(float *x) { x[threadIdx.x] = 1; }
__global__ void second(float *x) { x[threadIdx.x * 2] = 2; }
__global__ void third(float *x) { x[0] = 3; }

void run(float *x) {
  first<<<1, 128>>>(x);
  second<<<1, 64>>>(x);
  second<<<2, 64>>>(x);
}
// CHECK: 3 kernels, 3 launches
// CHECK: kernel first
// CHECK: launched 1x
// CHECK: kernel second
// CHECK: occ=0.4 {{.*}} tpb=64
// CHECK: launched 2x
// CHECK: kernel third
// CHECK: occ=0.1 {{.*}} tpb=0
// CHECK: translation unit:
// third is never launched (tpb unknown): occ averages the two that are.
// CHECK-NEXT: coal=0.533333 {{.*}} occ=0.7 {{.*}} kernels=3 tpb=96
