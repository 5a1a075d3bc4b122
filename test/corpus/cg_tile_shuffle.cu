// Cooperative-groups tiles of 16 with shuffles and tile.sync().
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void segmentedMax(const int *in, int *out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) v = max(v, tile.shfl_down(v, offset));
  tile.sync();
  if (tile.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 16] = v;
}
