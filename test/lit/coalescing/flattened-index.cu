// A flat index decomposed by thread-invariant extents (real code's
// `b = idx / (T * C); t = idx / C % T; c = idx % C`): a runtime row length is
// taken as a multiple of 32 lanes, as blockDim.x is for threadIdx.y, so
// `idx / C` is warp-uniform and `idx % C` keeps the lane. The recomposed
// address is stride 1; the column as the row index is stride C.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void addPosition(float *out, const int *tokens, const float *table, const float *position, int B, int T,
                            int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * T * C) {
    int bt = idx / C;
    int b = bt / T;
    int t = bt % T;
    int c = idx % C;
    int token = tokens[b * T + t];
    out[b * T * C + t * C + c] = table[token * C + c] + position[t * C + c];
    out[c * T + t] = 0.0f;
  }
}
// CHECK: kernel addPosition
// CHECK-DAG: global load tokens[b * T + t]  stride 0
// CHECK-DAG: global load table[token * C + c]  stride 1  score 1
// CHECK-DAG: global load position[t * C + c]  stride 1  score 1
// CHECK-DAG: global store out[b * T * C + t * C + c]  stride 1  score 1
// CHECK-DAG: global store out[c * T + t]  stride T

// A divisor that varies by lane keeps the result opaque.
__global__ void laneDivisor(float *out, const float *in, const int *widths) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int w = widths[i];
  out[i] = in[i % w];
}
// CHECK: kernel laneDivisor
// CHECK: global load in[i % w] stride unknown score 0

// Only a problem size from the parameters: gridDim.y (a launch can make it 1,
// and then `in[(i % G) + (i / G) * S]` is a stride-S walk) stays opaque.
__global__ void launchDivisor(float *out, const float *in, int S) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int G = gridDim.y;
  out[i] = in[(i % G) + (i / G) * S];
}
// CHECK: kernel launchDivisor
// CHECK: global load in[(i % G) + (i / G) * S] stride unknown score 0
