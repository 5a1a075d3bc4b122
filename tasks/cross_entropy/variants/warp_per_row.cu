// One warp per row: coalesced passes, xor-shuffle max and sum.
__global__ void crossEntropyWarp(const float *__restrict__ logits, const int *__restrict__ labels,
                                 float *__restrict__ loss, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = logits + (long)r * cols;
  float best = -INFINITY;
  for (int j = lane; j < cols; j += 32)
    best = fmaxf(best, row[j]);
  for (int offset = 16; offset > 0; offset >>= 1)
    best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, offset));
  float sum = 0.0f;
  for (int j = lane; j < cols; j += 32)
    sum += __expf(row[j] - best);
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    loss[r] = best + logf(sum) - row[labels[r] % cols];
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyWarp<<<(rows * 32 + 255) / 256, 256>>>(logits, labels, loss, rows, cols);
}
