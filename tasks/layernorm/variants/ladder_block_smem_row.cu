// One 128-thread block per row with the row cached in dynamic shared memory:
// one read of the row from global memory for the mean, the variance and the
// output; shuffle block reductions. Rows over 12000 floats re-read global.
#define THREADS 128

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

template <bool kCached>
__global__ void layernormSmem(const float *__restrict__ x, const float *__restrict__ gamma,
                              const float *__restrict__ beta, float *__restrict__ out, int cols) {
  extern __shared__ float cache[];
  __shared__ float slots[32];
  const float *row = x + (long)blockIdx.x * cols;
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    const float v = row[j];
    if (kCached)
      cache[j] = v;
    s += v;
  }
  const float mean = blockSum(s, slots) / cols;
  float q = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    const float d = (kCached ? cache[j] : row[j]) - mean;
    q += d * d;
  }
  const float inv = rsqrtf(blockSum(q, slots) / cols + 1e-5f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[(long)blockIdx.x * cols + j] = ((kCached ? cache[j] : row[j]) - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  if (cols <= 12000)
    layernormSmem<true><<<rows, THREADS, cols * sizeof(float)>>>(x, gamma, beta, out, cols);
  else
    layernormSmem<false><<<rows, THREADS>>>(x, gamma, beta, out, cols);
}
