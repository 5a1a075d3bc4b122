__global__ void sumShuffle(const float4 *__restrict__ x4, const float *__restrict__ x, float *out, int n) {
  float sum = 0.0f;
  const int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    float4 v = x4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4)
    sum += x[n4 * 4 + threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ float warpSums[32];
  if (threadIdx.x % 32 == 0)
    warpSums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warpSums[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0)
      atomicAdd(out, sum);
  }
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  sumShuffle<<<528, 512>>>(reinterpret_cast<const float4 *>(x), x, out, n);
}
