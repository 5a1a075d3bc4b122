// A tile of 8 lanes: its thread_rank() is threadIdx.x % 8 and its
// meta_group_rank() threadIdx.x / 8 within the warp (plus the warp's first
// tile), so a row per tile read across the tile's lanes is stride 1, as the
// same loop over threadIdx.x % 8 (access_strides/lane-groups.cu).
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s | FileCheck %s
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void tiles(const float *in, float *out, int n) {
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  int row = blockIdx.x * 32 + tile.meta_group_rank();
  float s = 0;
  for (int i = tile.thread_rank(); i < n; i += tile.size())
    s += in[row * n + i];
  if (tile.thread_rank() == 0)
    out[row] = s;
}
// CHECK-LABEL: kernel tiles
// CHECK-DAG: global load in[row * n + i]  stride 1  score 1
// CHECK-DAG: global store out[row]  stride 0  score 0.2
