// Plain CUDA: one thread per output, 16 x 16 blocks, batch on grid z.
__global__ void bmmKernel(const float *A, const float *B, float *C, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n)
    return;
  const float *a = A + (long)blockIdx.z * m * k, *b = B + (long)blockIdx.z * k * n;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc += a[row * k + p] * b[p * n + col];
  C[(long)blockIdx.z * m * n + row * n + col] = acc;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16, batch);
  bmmKernel<<<grid, block>>>(A, B, C, m, n, k);
}
