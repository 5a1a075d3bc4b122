// Atomics are counted per call site with their memory space.

__global__ void histogram(const int *data, int *bins, int n) {
  __shared__ int local[64];
  local[threadIdx.x % 64] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&local[data[i] % 64], 1);
  __syncthreads();
  if (threadIdx.x < 64)
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
