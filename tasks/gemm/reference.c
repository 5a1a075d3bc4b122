/* i-k-j order for a tolerable CPU baseline; accumulated in double. */
#include <stdlib.h>

void gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  double *row = (double *)malloc(sizeof(double) * (size_t)N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j)
      row[j] = 0;
    for (int k = 0; k < K; ++k) {
      const double a = A[(long)i * K + k];
      const float *b = B + (long)k * N;
      for (int j = 0; j < N; ++j)
        row[j] += a * b[j];
    }
    for (int j = 0; j < N; ++j)
      C[(long)i * N + j] = (float)row[j];
  }
  free(row);
}
