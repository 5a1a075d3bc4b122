// Real CUDA 13 headers through the verbatim command line of the docs: the
// missing texture_fetch_functions.h is handled, one report per compile.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-json %s | FileCheck %s
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main() {
  float *a, *b, *c;
  cudaMalloc(&a, 4096);
  cudaMalloc(&b, 4096);
  cudaMalloc(&c, 4096);
  add<<<4, 256>>>(a, b, c, 1024);
  cudaDeviceSynchronize();
}
// CHECK: "schema": "cudaperf.features/1",
// CHECK: "name": "add",
// CHECK: "location": "{{.*}}cuda13-headers.cu:7:17",
// CHECK: "coal": 1,
// CHECK: "tpb": 256,
// CHECK-NOT: "schema"
