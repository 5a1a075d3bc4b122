void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    double sum = 0;
    for (int j = 0; j < cols; ++j)
      sum += (double)A[(long)i * cols + j] * x[j];
    y[i] = (float)sum;
  }
}
