// The note of a divergent barrier points at the innermost condition that
// differs between threads, not at the uniform ones around it.
// RUN: %cudaperf-verify %s
#include "cuda.h"

__global__ void nested(float *x, int n) {
  __shared__ float s[64];
  for (int j = 0; j < n; ++j) {
    if (threadIdx.x % 2 == 0) { // expected-note {{the condition that differs between threads}}
      if (n > 4) {
        s[threadIdx.x] = x[j];
        __syncthreads(); // expected-warning {{barrier __syncthreads under a thread-dependent condition}}
      }
    }
  }
  x[threadIdx.x] = s[threadIdx.x];
}

// A barrier that every thread reaches gets neither a warning nor a note.
__global__ void uniformOnly(float *x, int n) {
  __shared__ float s[64];
  if (n > 4) {
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
  }
  x[threadIdx.x] = s[63 - threadIdx.x];
}
