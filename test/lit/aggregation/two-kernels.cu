// The file's vector pools both kernels: coal over every global site with the
// same weights as per kernel (a, b, out at 1; in[i * 32] at -0.5; the atomic
// counter, a broadcast, at 0.2: 2.7 / 5 = 0.54, not the mean of the kernels'
// 1 and -0.15), div over every branch (the one lane test: 1), tpb and occ
// averaged over the kernels whose block size is known ((256 + 128) / 2),
// ops (1 + 1), gmem (12 + 8 bytes), sync and atomics summed, ai = total ops /
// total gmem (2 / 20), kernels counted.
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

__global__ void copyAdd(float *out, const float *a, const float *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i] + b[i];
}

__global__ void gatherSum(float *out, const float *in, int *count) {
  __shared__ float partial[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = in[i * 32];
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(count, 1);
}

void launch(float *out, const float *a, const float *b, int *count, int n) {
  copyAdd<<<n / 256, 256>>>(out, a, b);
  gatherSum<<<n / 128, 128>>>(out, a, count);
}

// The kernels' own vectors come first, then the file's (after "host").
// CHECK:      "name": "copyAdd"
// CHECK:      "coal": 1,
// CHECK:      "name": "gatherSum"
// CHECK:      "coal": -0.15,
// CHECK:      "host": {
// CHECK:      "features": {
// CHECK-NEXT:   "coal": 0.54,
// CHECK-NEXT:   "ai": 0.1,
// CHECK-NEXT:   "occ": 1,
// CHECK-NEXT:   "div": 1,
// CHECK-NEXT:   "xfer": 0,
// CHECK-NEXT:   "atomics": 1,
// CHECK-NEXT:   "sync": 1,
// CHECK-NEXT:   "kernels": 2,
// CHECK-NEXT:   "tpb": 192,
// CHECK-NEXT:   "gmem": 20,
// CHECK-NEXT:   "ops": 2
