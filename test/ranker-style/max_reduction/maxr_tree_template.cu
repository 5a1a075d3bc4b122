/// @file
/// Max reduction: templated block size and element type. Each thread keeps
/// a running max over a grid-strided slice, a shared-memory tree reduces the
/// block, and thread 0 does one atomicMax per block.
#include <climits>

template <int BLOCK, typename T>
__global__ void blockMax(const T *__restrict__ x, T *__restrict__ out, int n) {
  __shared__ T best[BLOCK];
  T v = INT_MIN;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    v = max(v, x[i]);
  best[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      best[threadIdx.x] = max(best[threadIdx.x], best[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicMax(out, best[0]);
}

extern "C" void max_reduction(const int *x, int *out, int n) {
  const int lowest = INT_MIN;
  cudaMemcpy(out, &lowest, sizeof(int), cudaMemcpyHostToDevice);
  blockMax<512, int><<<512, 512>>>(x, out, n);
}
