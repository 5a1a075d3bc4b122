// Shared bins per block but one element per thread ((n + 255) / 256 blocks,
// no grid stride): every block clears and flushes all the bins for only 256
// elements.
__global__ void histSharedOne(const int *data, int *bins, int n, int nbins) {
  extern __shared__ int local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&local[v], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local[b])
      atomicAdd(&bins[b], local[b]);
}

extern "C" void histogram(const int *data, int *bins, int n, int nbins) {
  cudaMemsetAsync(bins, 0, nbins * sizeof(int));
  histSharedOne<<<(n + 255) / 256, 256, nbins * sizeof(int)>>>(data, bins, n, nbins);
}
