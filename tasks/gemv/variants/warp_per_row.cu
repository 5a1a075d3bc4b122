// One warp per row: lanes read consecutive columns, then a shuffle reduction.
__global__ void gemvWarp(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows,
                         int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *a = A + (long)row * cols;
  float sum = 0.0f;
  for (int j = lane; j < cols; j += 32)
    sum += a[j] * x[j];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    y[row] = sum;
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvWarp<<<(rows * 32 + 255) / 256, 256>>>(A, x, y, rows, cols);
}
