void column_sum(const float *a, float *out, int rows, int cols) {
  for (int j = 0; j < cols; ++j) {
    double sum = 0;
    for (int i = 0; i < rows; ++i)
      sum += a[(long)i * cols + j];
    out[j] = (float)sum;
  }
}
