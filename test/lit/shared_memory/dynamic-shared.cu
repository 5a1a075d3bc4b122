// extern __shared__ (dynamic) memory, sized at the launch.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void dynamicBuffer(float *x, int n) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}

void launch(float *x, int n) {
  dynamicBuffer<<<1, 128, 128 * sizeof(float)>>>(x, n);
}
// CHECK: kernel dynamicBuffer
// CHECK: shared: 0 B static, dynamic (512 B at launch), worst bank conflict 1-way
// CHECK: shared array buffer float[] 0 B dynamic
// CHECK: shared load buffer[blockDim.x - 1 - threadIdx.x] stride -1
// CHECK: dynamicBuffer<<<1, 128>>> grid=1 tpb=128 shared=512
