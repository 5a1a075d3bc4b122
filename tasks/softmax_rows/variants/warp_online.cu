__global__ void softmaxWarpOnline(const float *in, float *out, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *x = in + (size_t)row * cols;
  float *y = out + (size_t)row * cols;
  float m = -INFINITY, d = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    const float v = x[c];
    const float mNew = fmaxf(m, v);
    d = d * __expf(m - mNew) + __expf(v - mNew);
    m = mNew;
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float mOther = __shfl_xor_sync(0xffffffffu, m, offset);
    const float dOther = __shfl_xor_sync(0xffffffffu, d, offset);
    const float mNew = fmaxf(m, mOther);
    d = (m == -INFINITY ? 0.0f : d * __expf(m - mNew)) + (mOther == -INFINITY ? 0.0f : dOther * __expf(mOther - mNew));
    m = mNew;
  }
  const float inv = 1.0f / d;
  for (int c = lane; c < cols; c += 32)
    y[c] = __expf(x[c] - m) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  softmaxWarpOnline<<<(rows + 7) / 8, 256>>>(in, out, rows, cols);
}
