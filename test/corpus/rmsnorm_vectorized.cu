// RMSNorm with float4 loads and stores.
#include <cuda_runtime.h>

__global__ void rmsNorm4(const float4 *__restrict__ x, const float4 *__restrict__ weight, float4 *__restrict__ y,
                         int cols4, float eps) {
  __shared__ float warpSums[32];
  const float4 *row = x + blockIdx.x * cols4;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols4; c += blockDim.x) {
    float4 v = row[c];
    sum += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
  if (threadIdx.x % 32 == 0) warpSums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warpSums[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
    if (threadIdx.x == 0) warpSums[0] = rsqrtf(sum / (cols4 * 4) + eps);
  }
  __syncthreads();
  float scale = warpSums[0];
  for (int c = threadIdx.x; c < cols4; c += blockDim.x) {
    float4 v = row[c], w = weight[c];
    y[blockIdx.x * cols4 + c] = make_float4(v.x * scale * w.x, v.y * scale * w.y, v.z * scale * w.z, v.w * scale * w.w);
  }
}
