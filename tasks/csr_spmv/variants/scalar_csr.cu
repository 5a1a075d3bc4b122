// Scalar CSR: one thread per row; a warp's reads of values and col_idx are
// spread over 32 rows (uncoalesced), and rows of different length diverge.
__global__ void spmvScalar(const int *row_ptr, const int *col_idx, const float *values, const float *x, float *y,
                           int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float sum = 0.0f;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
    sum += values[k] * x[col_idx[k]];
  y[r] = sum;
}

extern "C" void csr_spmv(const int *row_ptr, const int *col_idx, const float *values, const float *x, float *y, int rows,
                         int cols) {
  spmvScalar<<<(rows + 255) / 256, 256>>>(row_ptr, col_idx, values, x, y, rows);
}
