void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  for (int b = 0; b < batch; ++b) {
    const float *a = A + (long)b * m * k, *bb = B + (long)b * k * n;
    float *c = C + (long)b * m * n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int p = 0; p < k; ++p)
          sum += (double)a[(long)i * k + p] * bb[(long)p * n + j];
        c[(long)i * n + j] = (float)sum;
      }
  }
}
