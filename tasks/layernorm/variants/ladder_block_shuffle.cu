// One 256-thread block per row, two passes over global memory (mean, then
// variance) as block_per_row, with warp-shuffle block reductions (one shared
// slot per warp) instead of shared-memory trees.
#define THREADS 256

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ float blockSum(float v, float *slots) {
  v = warpSum(v);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = warpSum(threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : 0.0f);
  __syncthreads();
  return v;
}

__global__ void layernormBlockShuffle(const float *__restrict__ x, const float *__restrict__ gamma,
                                      const float *__restrict__ beta, float *__restrict__ out, int cols) {
  __shared__ float slots[32];
  const float *row = x + (long)blockIdx.x * cols;
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += row[j];
  const float mean = blockSum(s, slots) / cols;
  float q = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    q += (row[j] - mean) * (row[j] - mean);
  const float inv = rsqrtf(blockSum(q, slots) / cols + 1e-5f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[(long)blockIdx.x * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormBlockShuffle<<<rows, THREADS>>>(x, gamma, beta, out, cols);
}
