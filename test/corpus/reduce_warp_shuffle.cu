// Reduction with warp shuffles: one shared slot per warp, grid-stride input.
#include <cuda_runtime.h>

__inline__ __device__ float warpReduceSum(float value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffff, value, offset);
  return value;
}

__global__ void reduceShuffle(const float *in, float *out, size_t n) {
  __shared__ float warpSums[32];
  float sum = 0.0f;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  sum = warpReduceSum(sum);
  if (lane == 0) warpSums[warp] = sum;
  __syncthreads();
  sum = (threadIdx.x < blockDim.x / warpSize) ? warpSums[lane] : 0.0f;
  if (warp == 0) sum = warpReduceSum(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}
