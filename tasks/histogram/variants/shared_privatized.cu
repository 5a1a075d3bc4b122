__global__ void histShared(const int *data, int *bins, int n, int nbins) {
  extern __shared__ int local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
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
  histShared<<<264, 512, nbins * sizeof(int)>>>(data, bins, n, nbins);
}
