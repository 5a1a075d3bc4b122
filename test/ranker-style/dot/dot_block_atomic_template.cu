// dot: one product per thread, a templated shared-memory reduction per
// block, and one atomicAdd per block into *out (cleared first).
#include <cuda_runtime.h>

template <int BLOCK, typename T>
__device__ T block_reduce_sum(T v, T *scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  return scratch[0];
}

template <int BLOCK, typename T>
__global__ void dot_kernel(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, int n) {
  __shared__ T scratch[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const T prod = i < n ? x[i] * y[i] : T(0);
  const T total = block_reduce_sum<BLOCK, T>(prod, scratch);
  if (threadIdx.x == 0)
    atomicAdd(out, total);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  constexpr int kThreadsPerBlock = 512;
  cudaMemsetAsync(out, 0, sizeof(float));
  const int blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  dot_kernel<kThreadsPerBlock, float><<<blocks, kThreadsPerBlock>>>(x, y, out, n);
}
