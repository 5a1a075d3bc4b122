// One kernel: the last block to finish (a ticket counter) takes the root.
__device__ unsigned int finished = 0;

__global__ void normShuffle(const float4 *__restrict__ x4, const float *__restrict__ x, float *sum, float *out, int n) {
  float s = 0.0f;
  const int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    float4 v = x4[i];
    s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4)
    s += x[n4 * 4 + threadIdx.x] * x[n4 * 4 + threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(sum, s);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&finished, 1u) == gridDim.x - 1) {
    *out = sqrtf(atomicAdd(sum, 0.0f));
    finished = 0;
  }
}

extern "C" void l2_norm(const float *x, float *out, int n) {
  float *sum;
  cudaMalloc(&sum, sizeof(float));
  cudaMemsetAsync(sum, 0, sizeof(float));
  normShuffle<<<528, 256>>>(reinterpret_cast<const float4 *>(x), x, sum, out, n);
  cudaFree(sum);
}
