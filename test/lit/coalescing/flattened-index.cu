// A flat index divided by a runtime value stays unknown (score 0): `idx / C`
// is warp-uniform and `idx % C` keeps the lane only when C is a multiple of
// 32, which the analysis cannot know, and a kernel launched with C = 1 would
// pass the stride-64 walk `in[(i / C) * 64 + i % C]` for a coalesced one
// (an adversarial review's finding). Real code decomposing `idx` by a row
// length (llm.c's encoder) therefore reads as unknown: a false negative kept
// on purpose.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void addPosition(float *out, const int *tokens, const float *table, int T, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int t = idx / C % T;
  int c = idx % C;
  out[idx] = table[tokens[t] * C + c];
}
// CHECK: kernel addPosition
// CHECK-DAG: global load tokens[t] stride unknown score 0
// CHECK-DAG: global load table[tokens[t] * C + c] stride unknown score 0
// CHECK-DAG: global store out[idx] stride 1 score 1

__global__ void stridedWalk(float *out, const float *in, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(i / C) * 64 + i % C];
}
void launch(float *out, const float *in) { stridedWalk<<<1024, 256>>>(out, in, 1); }
// CHECK: kernel stridedWalk
// CHECK: global load in[(i / C) * 64 + i % C] stride unknown score 0
