// Plain CUDA: one thread per row, 128-thread blocks.
__global__ void layernormKernel(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float mean = 0.0f, var = 0.0f;
  for (int j = 0; j < cols; ++j)
    mean += row[j];
  mean /= cols;
  for (int j = 0; j < cols; ++j)
    var += (row[j] - mean) * (row[j] - mean);
  float inv = rsqrtf(var / cols + 1e-5f);
  for (int j = 0; j < cols; ++j)
    out[(long)r * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormKernel<<<(rows + 127) / 128, 128>>>(x, gamma, beta, out, rows, cols);
}
