// 16 lanes per row (two rows per warp), shuffles of width 16. A half-warp
// past the last row stays in the loop structure (no early return) so the
// full-mask shuffles always have every lane.
__global__ void crossEntropyHalfWarp(const float *__restrict__ logits, const int *__restrict__ labels,
                                     float *__restrict__ loss, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 16, lane = threadIdx.x % 16;
  const bool active = r < rows;
  const float *row = logits + (long)(active ? r : 0) * cols;
  float best = -INFINITY;
  if (active)
    for (int j = lane; j < cols; j += 16)
      best = fmaxf(best, row[j]);
  for (int offset = 8; offset > 0; offset >>= 1)
    best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, offset, 16));
  float sum = 0.0f;
  if (active)
    for (int j = lane; j < cols; j += 16)
      sum += __expf(row[j] - best);
  for (int offset = 8; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset, 16);
  if (active && lane == 0)
    loss[r] = best + logf(sum) - row[labels[r] % cols];
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyHalfWarp<<<(rows * 16 + 255) / 256, 256>>>(logits, labels, loss, rows, cols);
}
