void csr_spmv(const int *row_ptr, const int *col_idx, const float *values, const float *x, float *y, int rows,
              int cols) {
  (void)cols;
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
      sum += (double)values[k] * x[col_idx[k]];
    y[r] = (float)sum;
  }
}
