void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p)
        sum += (double)A[(long)i * k + p] * B[(long)p * n + j];
      C[(long)i * n + j] = (float)sum;
    }
}
