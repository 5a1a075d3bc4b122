// A transfer counts for the kernels launched after it in the same host
// function; transfers after the last launch count only for the TU.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void a(float *x) { x[threadIdx.x] = 1; }
__global__ void b(float *x) { x[threadIdx.x] = 2; }

void run(float *h, float *d) {
  cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice);
  a<<<1, 32>>>(d);
  cudaMemcpyAsync(d, h, 64, cudaMemcpyHostToDevice);
  b<<<1, 32>>>(d);
  cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost);
}
// CHECK: kernel a
// CHECK-NEXT: {{.*}} xfer=1 {{.*}}
// CHECK: kernel b
// CHECK-NEXT: {{.*}} xfer=2 {{.*}}
// CHECK: translation unit:
// CHECK-NEXT: {{.*}} xfer=3 {{.*}}
