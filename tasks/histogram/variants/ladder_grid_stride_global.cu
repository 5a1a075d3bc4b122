// global_atomics over a fixed grid: each thread walks the input with a
// grid stride, one global atomic per element.
__global__ void histGridStride(const int *data, int *bins, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&bins[v], 1);
  }
}

extern "C" void histogram(const int *data, int *bins, int n, int nbins) {
  cudaMemsetAsync(bins, 0, nbins * sizeof(int));
  histGridStride<<<1056, 256>>>(data, bins, n, nbins);
}
