__global__ void histGlobal(const int *data, int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] >= 0 && data[i] < nbins)
    atomicAdd(&bins[data[i]], 1);
}

extern "C" void histogram(const int *data, int *bins, int n, int nbins) {
  cudaMemsetAsync(bins, 0, nbins * sizeof(int));
  histGlobal<<<(n + 255) / 256, 256>>>(data, bins, n, nbins);
}
