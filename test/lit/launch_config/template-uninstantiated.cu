// A kernel template nobody instantiates is still reported, from its pattern.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

template <typename T>
__global__ void fill(T *x, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = value;
}
// CHECK: kernel fill {{.*}}(uninstantiated template)
// CHECK: branch if (i < n) guard
