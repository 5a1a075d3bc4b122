// A tile's thread_rank() is the lane (a static member of thread_block_tile in
// CUDA 12 and 13, not a member call): a loop over it with the tile's size as
// step reads consecutive addresses, as the same loop over threadIdx.x % 32.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s | FileCheck %s
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void tileRank(const float *x, float *out, int C) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  float sum = 0;
  for (int i = warp.thread_rank(); i < C; i += warp.size())
    sum += x[i];
  if (warp.thread_rank() == 0)
    out[blockIdx.x] = sum;
}

__global__ void freeRank(const float *x, float *out, int C) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  float sum = 0;
  for (int i = cg::thread_rank(warp); i < C; i += 32)
    sum += x[i];
  out[blockIdx.x * 32 + warp.thread_rank()] = sum;
}

__global__ void laneByHand(const float *x, float *out, int C) {
  float sum = 0;
  for (int i = threadIdx.x % 32; i < C; i += 32)
    sum += x[i];
  if (threadIdx.x % 32 == 0)
    out[blockIdx.x] = sum;
}
// CHECK: 3 kernels
// CHECK: kernel tileRank
// CHECK: global load x[i]  stride 1  score 1
// CHECK: branch if (warp.thread_rank() == 0) lane_divergent
// CHECK: kernel freeRank
// CHECK: global load x[i]  stride 1  score 1
// CHECK: global store out[blockIdx.x * 32 + warp.thread_rank()]  stride 1  score 1
// CHECK: kernel laneByHand
// CHECK: global load x[i]  stride 1  score 1
