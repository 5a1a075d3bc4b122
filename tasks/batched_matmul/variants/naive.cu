// One thread per output, flat 1-D grid over batch x m x n.
__global__ void bmmFlat(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long)batch * m * n)
    return;
  int b = t / ((long)m * n), rest = t % ((long)m * n), row = rest / n, col = rest % n;
  const float *a = A + (long)b * m * k, *bb = B + (long)b * k * n;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc += a[row * k + p] * bb[p * n + col];
  C[t] = acc;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  long total = (long)batch * m * n;
  bmmFlat<<<(unsigned)((total + 255) / 256), 256>>>(A, B, C, batch, m, n, k);
}
