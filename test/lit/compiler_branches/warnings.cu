// With warnings on, each compiler branch is a Clang warning at its line.
// RUN: %cudaperf-verify %s
#include "cuda.h"

__global__ void k(float *x) {
#ifdef __CUDA_ARCH__ // expected-warning {{'__CUDA_ARCH__' decides what this file holds: nvcc builds the code that runs with it as the device side defines it, and this report reads the host side}}
  x[threadIdx.x * 32] = 1;
#else
  x[threadIdx.x] = 1;
#endif
#ifndef __clang__ // expected-warning {{'__clang__' is not the same under Clang and nvcc: this report reads Clang's view of the file, and nvcc may build other code}}
  x[0] = 2;
#endif
}
