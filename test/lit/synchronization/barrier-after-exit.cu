// Returning early on a thread-dependent guard, then waiting at a barrier.
// RUN: %cudaperf-verify %s
#include "cuda.h"

__global__ void exitThenBarrier(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) // expected-note {{threads for which this condition differs return here, before the barrier}}
    return;
  s[threadIdx.x] = x[i];
  __syncthreads(); // expected-warning {{barrier __syncthreads after a thread-dependent return}}
  x[i] = s[255 - threadIdx.x];
}
// The report carries the note with the warning:
// RUN: %cudaperf-json %s | FileCheck %s --check-prefix=JSON
// JSON:      "message": "barrier __syncthreads after a thread-dependent return: exited threads never reach it",
// JSON-NEXT: "note": {
// JSON-NEXT:   "location": "{{.*}}barrier-after-exit.cu:8:7",
// JSON-NEXT:   "message": "threads for which this condition differs return here, before the barrier"
