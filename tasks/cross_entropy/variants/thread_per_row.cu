// One thread per row: a pass for the maximum, one for the sum of exponentials.
__global__ void crossEntropyThread(const float *logits, const int *labels, float *loss, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = logits + (long)r * cols;
  float best = row[0];
  for (int j = 1; j < cols; ++j)
    best = fmaxf(best, row[j]);
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j)
    sum += expf(row[j] - best);
  loss[r] = best + logf(sum) - row[labels[r] % cols];
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyThread<<<(rows + 255) / 256, 256>>>(logits, labels, loss, rows, cols);
}
