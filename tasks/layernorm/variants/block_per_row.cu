// One 256-thread block per row: shared-memory tree reductions for the mean
// and the variance (two passes, coalesced).
__device__ float blockSum(float v, float *scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  float total = scratch[0];
  __syncthreads();
  return total;
}

__global__ void layernormBlock(const float *__restrict__ x, const float *__restrict__ gamma,
                               const float *__restrict__ beta, float *__restrict__ out, int cols) {
  __shared__ float scratch[256];
  const float *row = x + (long)blockIdx.x * cols;
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += row[j];
  const float mean = blockSum(s, scratch) / cols;
  float q = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    q += (row[j] - mean) * (row[j] - mean);
  const float inv = rsqrtf(blockSum(q, scratch) / cols + 1e-5f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[(long)blockIdx.x * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormBlock<<<rows, 256>>>(x, gamma, beta, out, cols);
}
