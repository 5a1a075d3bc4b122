// Off by one: each row stops one entry short (k < row_ptr[r + 1] - 1).
__global__ void spmvShort(const int *row_ptr, const int *col_idx, const float *values, const float *x, float *y,
                          int rows) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  float sum = 0.0f;
  for (int k = row_ptr[r] + lane; k < row_ptr[r + 1] - 1; k += 32)
    sum += values[k] * x[col_idx[k]];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    y[r] = sum;
}

extern "C" void csr_spmv(const int *row_ptr, const int *col_idx, const float *values, const float *x, float *y, int rows,
                         int cols) {
  spmvShort<<<(rows * 32 + 255) / 256, 256>>>(row_ptr, col_idx, values, x, y, rows);
}
