// Kernels written to pass a scattered access or a divergent branch through
// the lane-group rules (access_strides/lane-groups.cu) for a good one. Each
// must read as what the hardware does. (An adversarial review's cases.)
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

// A group shifted by a run-time amount is no aligned group: `(t + q) / 2 - t / 2`
// is 0 or 1 from lane to lane (the lane's low bit), never a uniform value, so
// the sum of such bits (t % 32 at run time) cannot launder a stride-64 walk.
__global__ void shiftedGroups(const float *in, float *out, int one) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int b0 = (t + one) / 2 - t / 2, b1 = (t + 2 * one) / 4 - t / 4, b2 = (t + 4 * one) / 8 - t / 8;
  int b3 = (t + 8 * one) / 16 - t / 16, b4 = (t + 16 * one) / 32 - t / 32;
  int lane = b0 + 2 * b1 + 4 * b2 + 8 * b3 + 16 * b4;
  int d = (t + one) % 8 - t % 8;
  out[t] = in[t + 63 * lane] + in[t + 1000 * d];
  if (b0)
    out[t] = 0.0f;
}
// CHECK-LABEL: kernel shiftedGroups
// CHECK-DAG: global load in[t + 63 * lane]  stride unknown  score 0
// CHECK-DAG: global load in[t + 1000 * d]  stride unknown  score 0
// CHECK-DAG: branch if (b0) lane_divergent

// Nor is a shift by blockDim.y or .z (1 in most launches: only blockDim.x is a
// whole number of warps), nor a negative one: C's division truncates toward
// zero, so `(x - 800000) / 8` is not `x / 8 - 100000` for most lanes.
__global__ void otherShifts(float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int bz = (t + blockDim.z) / 2 - t / 2;
  int neg = ((int)threadIdx.x - 800000) / 8 - (int)threadIdx.x / 8 + 100000;
  if (bz)
    out[t] = 1.0f;
  if (neg)
    out[t] = 2.0f;
}
// CHECK-LABEL: kernel otherShifts
// CHECK-DAG: branch if (bz) lane_divergent
// CHECK-DAG: branch if (neg) lane_divergent

// A warp cut by a constant shift is not warp-uniform either (half the warp each way).
__global__ void shiftedWarp(float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int half = (t + 16) / 32 - t / 32;
  if (half)
    out[t] = 1.0f;
}
// CHECK-LABEL: kernel shiftedWarp
// CHECK: branch if (half) lane_divergent

// The lane within a group repeats across the warp: comparing it alone with a
// size splits every warp; the group index (rising with the lane) is a guard,
// and so is the lane within a group beside a block index (the last block).
__global__ void laneCompare(const float *in, float *out, int k, int rows) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[t];
  if (threadIdx.x % 2 < k)
    v = v * v;
  if (t / 8 < rows)
    v += 1.0f;
  if (t / 8 - t < rows)
    v -= 1.0f;
  if (blockIdx.x * 16 + threadIdx.x % 16 < rows) // a tile's column against the matrix's: the last tile
    v *= 2.0f;
  out[t] = v;
}
// CHECK-LABEL: kernel laneCompare
// CHECK-DAG: branch if (threadIdx.x % 2 < k) lane_divergent
// CHECK-DAG: branch if (t / 8 < rows) guard
// CHECK-DAG: branch if (t / 8 - t < rows) lane_divergent
// CHECK-DAG: branch if (blockIdx.x * 16 + threadIdx.x % 16 < rows) guard

// Every C-th element: the warp's distinct addresses C elements apart, as stride C.
__global__ void everyCth(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = in[(t / 8) * 8] + in[(t / 2) * 2] + in[t / 8];
}
// CHECK-LABEL: kernel everyCth
// CHECK-DAG: global load in[(t / 8) * 8]  stride 8  score -0.5
// CHECK-DAG: global load in[(t / 2) * 2]  stride 2  score 0.4
// CHECK-DAG: global load in[t / 8]  stride 0  score 0.2

// A thread's local array holds its own values: the same local address in
// every lane is no uniform value, and a value read there is no group base.
__global__ void localValues(const int *idx, const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a[4];
  for (int i = 0; i < 4; ++i)
    a[i] = idx[t * 4 + i];
  out[t] = in[a[0] + t] + in[a[(t / 8) % 4] + t % 8];
}
// CHECK-LABEL: kernel localValues
// CHECK-DAG: global load in[a[0] + t]  stride unknown  score 0
// CHECK-DAG: global load in[a[(t / 8) % 4] + t % 8]  stride unknown  score 0
