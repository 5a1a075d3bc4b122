// A tile cut from another tile ranks within its parent: meta_group_rank() of
// tiled_partition<8>(tile16) is 0 or 1, which half of the 16 lanes, so it
// varies across a warp and is no group index of the block.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s | FileCheck %s
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void nested(const float *in, float *out, int k) {
  auto tile16 = cg::tiled_partition<16>(cg::this_thread_block());
  auto tile8 = cg::tiled_partition<8>(tile16);
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = in[tile8.meta_group_rank() * 8 + tile8.thread_rank()];
  if (tile8.thread_rank() < k)
    out[t] += 1.0f;
  // The same tile under a type that no longer names its parent.
  cg::thread_block_tile<8> erased = cg::tiled_partition<8>(tile16);
  out[t] += in[erased.meta_group_rank() * 8 + erased.thread_rank()];
}
// CHECK-LABEL: kernel nested
// CHECK-DAG: global load in[tile8.meta_group_rank() * 8 + tile8.thread_rank()]  stride unknown  score 0
// CHECK-DAG: branch if (tile8.thread_rank() < k) lane_divergent
// CHECK-DAG: global load in[erased.meta_group_rank() * 8 + erased.thread_rank()]  stride unknown  score 0
