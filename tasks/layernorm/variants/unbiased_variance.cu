// Divides the variance by cols - 1 (the unbiased estimator) where the biased one is specified.
__global__ void layernormUnbiased(const float *x, const float *gamma, const float *beta, float *out, int rows,
                                  int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float mean = 0.0f;
  for (int j = 0; j < cols; ++j)
    mean += row[j];
  mean /= cols;
  float var = 0.0f;
  for (int j = 0; j < cols; ++j)
    var += (row[j] - mean) * (row[j] - mean);
  const float inv = rsqrtf(var / max(cols - 1, 1) + 1e-5f);
  for (int j = 0; j < cols; ++j)
    out[(long)r * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormUnbiased<<<(rows + 255) / 256, 256>>>(x, gamma, beta, out, rows, cols);
}
