// One thread per output; neighbouring threads share a row of A and read
// neighbouring columns of B.
__global__ void gemmNaive(const float *A, const float *B, float *C, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n)
    return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc += A[(long)row * k + p] * B[(long)p * n + col];
  C[(long)row * n + col] = acc;
}

extern "C" void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  dim3 block(32, 8), grid((n + 31) / 32, (m + 7) / 8);
  gemmNaive<<<grid, block>>>(A, B, C, m, n, k);
}
