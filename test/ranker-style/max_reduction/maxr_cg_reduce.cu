// Max reduction through cooperative groups: grid-stride int4 loads through
// the read-only path (a scalar tail for n % 4, or for all of x when it is
// not 16-byte aligned), cg::reduce with cg::greater per 32-thread tile, the
// tile maxima combined in shared memory, one atomicMax per block.
#include <climits>
#include <cstdint>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ int max4(int4 q) { return max(max(q.x, q.y), max(q.z, q.w)); }

__global__ void init_out(int *out) { *out = INT_MIN; }

__global__ void max_cg(const int *__restrict__ x, int *__restrict__ out, int n, int n4) {
  __shared__ int tile_best[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  int v = INT_MIN;
  for (int i = first; i < n4; i += stride)
    v = max(v, max4(__ldg(reinterpret_cast<const int4 *>(x) + i)));
  for (int i = 4 * n4 + first; i < n; i += stride)
    v = max(v, __ldg(x + i));
  v = cg::reduce(warp, v, cg::greater<int>());
  if (warp.thread_rank() == 0)
    tile_best[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < warp.meta_group_size() ? tile_best[warp.thread_rank()] : INT_MIN;
    v = cg::reduce(warp, v, cg::greater<int>());
    if (warp.thread_rank() == 0)
      atomicMax(out, v);
  }
}

extern "C" void max_reduction(const int *x, int *out, int n) {
  const int n4 = reinterpret_cast<uintptr_t>(x) % 16 == 0 ? n / 4 : 0;
  int block_size = 256;
  int grid_size = 132 * (2048 / block_size);
  init_out<<<1, 1>>>(out);
  max_cg<<<grid_size, block_size>>>(x, out, n, n4);
}
