// A kernel templated on its block size, instantiated by launches: each
// instantiation is analysed with its concrete shared size; the pattern is not.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

template <int BLOCK>
__global__ void reduce(const float *in, float *out) {
  __shared__ float buf[BLOCK];
  buf[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

void run(const float *in, float *out) {
  reduce<256><<<100, 256>>>(in, out);
  reduce<128><<<200, 128>>>(in, out);
}
// CHECK: 2 kernels, 2 launches
// CHECK: kernel reduce<256>
// CHECK: tpb=256
// CHECK: shared: 1024 B static
// CHECK: kernel reduce<128>
// CHECK: tpb=128
// CHECK: shared: 512 B static
// CHECK-NOT: uninstantiated
