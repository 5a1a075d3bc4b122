// The entry's size parameter bound to the task's benchmark value: a grid
// computed from it is sized (blocks, threads); without the entry it is not.
// RUN: %cudaperf-text %s %cudaperf-arg-entry=scale %cudaperf-arg-entry-args=_,_,1000000 | FileCheck %s
// RUN: %cudaperf-json %s %cudaperf-arg-entry=scale %cudaperf-arg-entry-args=_,_,1000000 | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-text %s | FileCheck %s --check-prefix=NOENTRY
#include "cuda.h"

__global__ void scaleKernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

extern "C" void scale(const float *x, float *y, int n) {
  const int threads = 128;
  int blocks = (n + threads - 1) / threads;
  scaleKernel<<<blocks, threads>>>(x, y, n);
}
// 1000000 / 128 rounded up is 7813 blocks, 1000064 threads.
// CHECK: extended: {{.*}} blocks=7813 threads=1.00006e+06
// CHECK-NOT: unknown: {{.*}}blocks
// CHECK: launches of scale at the task's size:
// CHECK-NEXT: scaleKernel  blocks=7813  tpb=128  threads=1000064  @{{.*}}computed-grid.cu:16:

// JSON: "extended": {
// JSON: "blocks": 7813,
// JSON: "threads": 1000064
// JSON: "entry": "scale",
// JSON-NEXT: "entry_launches": [
// JSON-NEXT: {
// JSON-NEXT: "kernel": "scaleKernel",
// JSON-NEXT: "location": "{{.*}}computed-grid.cu:16:3",
// JSON-NEXT: "blocks": 7813,
// JSON-NEXT: "threads_per_block": 128,
// JSON-NEXT: "threads": 1000064,
// JSON-NEXT: "loop_depth": 0

// NOENTRY-NOT: at the task's size
// NOENTRY: translation unit:
// NOENTRY: unknown: {{.*}}blocks threads
