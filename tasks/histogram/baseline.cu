// Plain CUDA: bins privatised per block in shared memory, then one atomic
// per bin and block into the global bins.
#define THREADS 256

__global__ void histShared(const int *data, int *bins, int n, int nbins) {
  extern __shared__ int local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
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
  const int blocks = (n + THREADS - 1) / THREADS < 1024 ? (n + THREADS - 1) / THREADS : 1024;
  histShared<<<blocks, THREADS, nbins * sizeof(int)>>>(data, bins, n, nbins);
}
