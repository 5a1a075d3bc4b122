// One warp per row, the sum and the sum of squares in a single pass (the
// variance as E[(x - x0)^2] - E[x - x0]^2, shifted by the row's first value
// to keep the float cancellation small), then the output pass: two reads of
// the row instead of three.
__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernormOnePass(const float *__restrict__ x, const float *__restrict__ gamma,
                                 const float *__restrict__ beta, float *__restrict__ out, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  const float shift = row[0];
  float s = 0.0f, q = 0.0f;
  for (int j = lane; j < cols; j += 32) {
    const float d = row[j] - shift;
    s += d;
    q += d * d;
  }
  s = warpSum(s) / cols;
  q = warpSum(q) / cols;
  const float mean = shift + s;
  const float inv = rsqrtf(fmaxf(q - s * s, 0.0f) + 1e-5f);
  for (int j = lane; j < cols; j += 32)
    out[(long)r * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormOnePass<<<(rows * 32 + 255) / 256, 256>>>(x, gamma, beta, out, rows, cols);
}
