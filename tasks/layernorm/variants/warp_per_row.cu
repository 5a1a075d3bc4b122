// One warp per row; rows up to 1024 columns are cached in registers (32
// values per lane), longer rows are re-read; shuffle reductions.
constexpr int kCached = 32;

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernormWarp(const float *__restrict__ x, const float *__restrict__ gamma,
                              const float *__restrict__ beta, float *__restrict__ out, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float cache[kCached];
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kCached; ++c) {
    int j = lane + 32 * c;
    cache[c] = j < cols ? row[j] : 0.0f;
    s += cache[c];
  }
  for (int j = lane + 32 * kCached; j < cols; j += 32)
    s += row[j];
  const float mean = warpSum(s) / cols;
  float q = 0.0f;
#pragma unroll
  for (int c = 0; c < kCached; ++c)
    if (lane + 32 * c < cols)
      q += (cache[c] - mean) * (cache[c] - mean);
  for (int j = lane + 32 * kCached; j < cols; j += 32)
    q += (row[j] - mean) * (row[j] - mean);
  const float inv = rsqrtf(warpSum(q) / cols + 1e-5f);
#pragma unroll
  for (int c = 0; c < kCached; ++c) {
    int j = lane + 32 * c;
    if (j < cols)
      out[(long)r * cols + j] = (cache[c] - mean) * inv * gamma[j] + beta[j];
  }
  for (int j = lane + 32 * kCached; j < cols; j += 32)
    out[(long)r * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormWarp<<<(rows * 32 + 255) / 256, 256>>>(x, gamma, beta, out, rows, cols);
}
