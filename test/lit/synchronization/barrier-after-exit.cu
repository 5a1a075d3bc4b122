// Returning early on a thread-dependent guard, then waiting at a barrier.
// RUN: %cudaperf-verify %s
#include "cuda.h"

__global__ void exitThenBarrier(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  s[threadIdx.x] = x[i];
  __syncthreads(); // expected-warning {{barrier __syncthreads after a thread-dependent return}}
  x[i] = s[255 - threadIdx.x];
}
