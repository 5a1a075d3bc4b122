// One warp per pair of rows: each x[j] is loaded once for two rows (two
// accumulators per lane), two shuffle reductions.
__global__ void gemvWarp2(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows,
                          int cols) {
  const int row0 = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 2, lane = threadIdx.x % 32;
  if (row0 >= rows)
    return;
  const bool second = row0 + 1 < rows;
  const float *a0 = A + (long)row0 * cols, *a1 = a0 + cols;
  float s0 = 0.0f, s1 = 0.0f;
  for (int j = lane; j < cols; j += 32) {
    const float v = x[j];
    s0 += a0[j] * v;
    if (second)
      s1 += a1[j] * v;
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    s0 += __shfl_down_sync(0xffffffffu, s0, offset);
    s1 += __shfl_down_sync(0xffffffffu, s1, offset);
  }
  if (lane == 0) {
    y[row0] = s0;
    if (second)
      y[row0 + 1] = s1;
  }
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  const int warps = (rows + 1) / 2;
  gemvWarp2<<<(warps * 32 + 255) / 256, 256>>>(A, x, y, rows, cols);
}
