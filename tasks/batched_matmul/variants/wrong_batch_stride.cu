// Strides A's batches by m * min(n, k) instead of m * k: wrong whenever n < k
// (the clamp keeps the reads inside A).
__global__ void bmmStride(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n)
    return;
  long stride = (long)m * min(n, k);
  const float *a = A + blockIdx.z * stride, *b = B + (long)blockIdx.z * k * n;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc += a[row * k + p] * b[p * n + col];
  C[(long)blockIdx.z * m * n + row * n + col] = acc;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16, batch);
  bmmStride<<<grid, block>>>(A, B, C, batch, m, n, k);
}
