// cudaMemcpy inside a host loop: weighted 8 and warned about.
// RUN: %cudaperf-verify %s
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void step(float *x) { x[threadIdx.x] += 1.0f; }

void iterate(float *host, float *device, int steps) {
  cudaMemcpy(device, host, 1024, cudaMemcpyHostToDevice);
  for (int s = 0; s < steps; ++s) {
    step<<<4, 256>>>(device);
    cudaMemcpy(host, device, 1024, cudaMemcpyDeviceToHost); // expected-warning {{cudaMemcpy inside a loop: a host<->device transfer on every iteration}}
  }
}
// CHECK: kernel step
// CHECK-NEXT: {{.*}} xfer=1 {{.*}}
// CHECK: transfers:
// CHECK-NEXT: cudaMemcpy @
// CHECK-NEXT: cudaMemcpy (in loop) @
// CHECK: translation unit:
// CHECK-NEXT: {{.*}} xfer=9 {{.*}}
