// One warp per row, coalesced, shuffle reductions; the row is read from
// global memory in each of the three passes (no register cache).
__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernormWarp2(const float *__restrict__ x, const float *__restrict__ gamma,
                               const float *__restrict__ beta, float *__restrict__ out, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float s = 0.0f;
  for (int j = lane; j < cols; j += 32)
    s += row[j];
  const float mean = warpSum(s) / cols;
  float q = 0.0f;
  for (int j = lane; j < cols; j += 32)
    q += (row[j] - mean) * (row[j] - mean);
  const float inv = rsqrtf(warpSum(q) / cols + 1e-5f);
  for (int j = lane; j < cols; j += 32)
    out[(long)r * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormWarp2<<<(rows * 32 + 255) / 256, 256>>>(x, gamma, beta, out, rows, cols);
}
