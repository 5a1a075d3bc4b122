// float4 loads over cols / 4 groups, with no scalar loop for the last cols % 4 columns.
__global__ void gemvVecOnly(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows,
                            int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *a = A + (long)row * cols;
  float sum = 0.0f;
  for (int j = lane * 4; j + 3 < cols; j += 128)
    sum += a[j] * x[j] + a[j + 1] * x[j + 1] + a[j + 2] * x[j + 2] + a[j + 3] * x[j + 3];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    y[row] = sum;
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvVecOnly<<<(rows * 32 + 255) / 256, 256>>>(A, x, y, rows, cols);
}
