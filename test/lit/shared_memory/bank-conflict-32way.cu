// Reading a column of a 32x32 float tile: 32 words between lanes, every lane
// in the same bank, a 32-way conflict.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-verify %s
#include "cuda.h"

__global__ void column(float *out) {
  __shared__ float tile[32][32]; // expected-note {{'tile' declared here: a row length that is not a multiple of 32 words}}
  tile[threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y]; // expected-warning {{shared load of 'tile' has a 32-way bank conflict (stride 32 words across threadIdx.x)}}
}
// CHECK: kernel column
// CHECK: worst bank conflict 32-way
// CHECK: shared store tile[threadIdx.y][threadIdx.x] stride 1 bank 1-way
// CHECK: shared load tile[threadIdx.x][threadIdx.y] stride 32 bank 32-way
// CHECK: warning: shared load of 'tile' has a 32-way bank conflict
// CHECK-NEXT: note: 'tile' declared here{{.*}}@{{.*}}bank-conflict-32way.cu:8:
