__global__ void softmaxThreadRow(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *x = in + (size_t)r * cols;
  float *y = out + (size_t)r * cols;
  float m = x[0];
  for (int c = 1; c < cols; ++c)
    m = fmaxf(m, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c)
    sum += expf(x[c] - m);
  for (int c = 0; c < cols; ++c)
    y[c] = expf(x[c] - m) / sum;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  softmaxThreadRow<<<(rows + 127) / 128, 128>>>(in, out, rows, cols);
}
