// One warp per row; float4 loads and stores when cols % 4 == 0 (rows stay
// 16-byte aligned), scalar otherwise; xor-shuffle reduction.
__global__ void rmsnormWarp(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ out, int rows,
                            int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float *dst = out + (long)r * cols;
  const bool vector = cols % 4 == 0;
  float squares = 0.0f;
  if (vector) {
    for (int j = lane; j < cols / 4; j += 32) {
      float4 v = reinterpret_cast<const float4 *>(row)[j];
      squares += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  } else {
    for (int j = lane; j < cols; j += 32)
      squares += row[j] * row[j];
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  const float inv = rsqrtf(squares / cols + 1e-6f);
  if (vector) {
    for (int j = lane; j < cols / 4; j += 32) {
      float4 v = reinterpret_cast<const float4 *>(row)[j], g = reinterpret_cast<const float4 *>(w)[j];
      reinterpret_cast<float4 *>(dst)[j] = make_float4(v.x * inv * g.x, v.y * inv * g.y, v.z * inv * g.z, v.w * inv * g.w);
    }
  } else {
    for (int j = lane; j < cols; j += 32)
      dst[j] = row[j] * inv * w[j];
  }
}

extern "C" void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  rmsnormWarp<<<(rows * 32 + 255) / 256, 256>>>(x, w, out, rows, cols);
}
