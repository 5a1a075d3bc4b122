// A grid computed from a runtime size is unknown; the block is still known,
// even through a plain local that is never written again.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-json %s | FileCheck %s --check-prefix=JSON
#include "cuda.h"

__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0;
}

void run(float *x, int n) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  k<<<blocks, threads>>>(x, n);
}
// CHECK: k<<<blocks, threads>>> grid=? tpb=256
// JSON: "launches": [
// JSON: "grid": {
// JSON-NEXT: "x": null,
// JSON: "known": false,
// JSON-NEXT: "expression": "blocks"
// JSON: "block": {
// JSON-NEXT: "x": 256,
// JSON: "threads_per_block": 256,
