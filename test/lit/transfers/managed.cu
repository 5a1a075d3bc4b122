// Managed memory counts as transfers (JSON host summary).
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

__global__ void touch(float *x) { x[threadIdx.x] = 1; }

void run() {
  float *x;
  cudaMallocManaged(&x, 1024);
  touch<<<1, 256>>>(x);
  cudaDeviceSynchronize();
}
// CHECK: "host": {
// CHECK: "function": "cudaMallocManaged"
// CHECK: "device_syncs": 1,
// CHECK: "managed_allocations": 1,
// CHECK: "features": {
// CHECK: "xfer": 1,
