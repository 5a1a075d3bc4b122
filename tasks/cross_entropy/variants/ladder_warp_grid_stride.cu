// warp_per_row over a fixed grid (264 blocks of 8 warps): each warp takes
// rows with a grid stride.
__global__ void crossEntropyWarpStride(const float *__restrict__ logits, const int *__restrict__ labels,
                                       float *__restrict__ loss, int rows, int cols) {
  const int lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows; r += warps) {
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
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyWarpStride<<<264, 256>>>(logits, labels, loss, rows, cols);
}
