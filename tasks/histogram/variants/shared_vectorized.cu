__device__ __forceinline__ void count(int *local, int v, int nbins) {
  if (v >= 0 && v < nbins)
    atomicAdd(&local[v], 1);
}

__global__ void histVec(const int4 *__restrict__ data4, const int *__restrict__ data, int *bins, int n, int nbins) {
  extern __shared__ int local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  const int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    int4 v = data4[i];
    count(local, v.x, nbins);
    count(local, v.y, nbins);
    count(local, v.z, nbins);
    count(local, v.w, nbins);
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4)
    count(local, data[n4 * 4 + threadIdx.x], nbins);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local[b])
      atomicAdd(&bins[b], local[b]);
}

extern "C" void histogram(const int *data, int *bins, int n, int nbins) {
  cudaMemsetAsync(bins, 0, nbins * sizeof(int));
  histVec<<<264, 256, nbins * sizeof(int)>>>(reinterpret_cast<const int4 *>(data), data, bins, n, nbins);
}
