// Sum reduction: divergent interleaved addressing versus sequential
// addressing with warp shuffles.
#include <cuda_runtime.h>

__global__ void reduceInterleaved(const int *in, int *out) {
  __shared__ int s[256];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduceShuffle(const int *in, int *out, int n) {
  __shared__ int warpTotals[8];
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffff, sum, offset);
  if (threadIdx.x % 32 == 0) warpTotals[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 8) {
    sum = warpTotals[threadIdx.x];
    for (int offset = 4; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xff, sum, offset);
    if (threadIdx.x == 0) atomicAdd(out, sum);
  }
}

void reduce(const int *in, int *out, int n) {
  reduceInterleaved<<<n / 256, 256>>>(in, out);
  reduceShuffle<<<256, 256>>>(in, out, n);
}
