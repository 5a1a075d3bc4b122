// Global atomics aggregated per warp: __match_any_sync groups the lanes that
// hold the same bin, and the lowest lane of each group adds the group's size.
// The loop runs warp by warp (every lane of a warp takes the same
// iterations), so the full mask is always valid.
__global__ void histWarpAggregated(const int *data, int *bins, int n, int nbins) {
  const int lane = threadIdx.x % 32, stride = blockDim.x * gridDim.x;
  for (int base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < n; base += stride) {
    const int i = base + lane;
    const int v = i < n ? data[i] : -1;
    const bool valid = v >= 0 && v < nbins;
    const unsigned peers = __match_any_sync(0xffffffffu, valid ? v : -1);
    if (valid && lane == __ffs(peers) - 1)
      atomicAdd(&bins[v], __popc(peers));
  }
}

extern "C" void histogram(const int *data, int *bins, int n, int nbins) {
  cudaMemsetAsync(bins, 0, nbins * sizeof(int));
  histWarpAggregated<<<1056, 256>>>(data, bins, n, nbins);
}
