// A block size chosen at run time (the common case in real code) is unknown,
// not bad: tpb and occ are reported unknown, kernel and file, and the
// file's occ averages only the kernels whose block size is known.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-json %s | FileCheck --check-prefix=JSON %s
#include "cuda.h"

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

void run(float *x, int n, int block_size) { scale<<<(n + block_size - 1) / block_size, block_size>>>(x, n); }
// CHECK: kernel scale
// CHECK: launch: tpb=? (unknown), occupancy 0 on sm_90 (limited by unknown)
// JSON: "name": "scale",
// JSON: "features_unknown": [
// JSON-NEXT: "occ",
// JSON-NEXT: "tpb",
// JSON-NEXT: "blocks",
// JSON-NEXT: "threads"
// JSON-NEXT: ],
// JSON: "limiter": "unknown"
// JSON: "features": {
// JSON: "features_unknown": [
// JSON-NEXT: "occ",
// JSON-NEXT: "tpb",
// JSON-NEXT: "blocks",
// JSON-NEXT: "threads"
// JSON-NEXT: ],
