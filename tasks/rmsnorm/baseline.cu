// Plain CUDA: one thread per row, 128-thread blocks.
__global__ void rmsnormKernel(const float *x, const float *w, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float squares = 0.0f;
  for (int j = 0; j < cols; ++j)
    squares += row[j] * row[j];
  float inv = rsqrtf(squares / cols + 1e-6f);
  for (int j = 0; j < cols; ++j)
    out[(long)r * cols + j] = row[j] * inv * w[j];
}

extern "C" void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  rmsnormKernel<<<(rows + 127) / 128, 128>>>(x, w, out, rows, cols);
}
