// Cooperative groups: block sync and tile shuffles from the real headers.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s | FileCheck %s
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void cgReduce(const float *in, float *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  float v = in[block.group_index().x * block.size() + block.thread_rank()];
  for (int offset = warp.size() / 2; offset > 0; offset /= 2)
    v += warp.shfl_down(v, offset);
  block.sync();
  if (warp.thread_rank() == 0)
    atomicAdd(out, v);
}
// CHECK: kernel cgReduce
// CHECK: sync=1
// CHECK: sync cg::sync
// CHECK: extras: {{.*}} shuffles=1
