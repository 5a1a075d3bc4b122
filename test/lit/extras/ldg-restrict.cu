// __ldg loads and const __restrict__ pointers.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void readOnly(const float *__restrict__ in, float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __ldg(&in[i]) + __ldg(in + i + 1);
}
// CHECK: kernel readOnly
// CHECK: global load __ldg(&in[i]) stride 1 score 1
// CHECK: global load __ldg(in + i + 1) stride 1 score 1
// CHECK: extras: vectorized=0 ldg=2 restrict=2
