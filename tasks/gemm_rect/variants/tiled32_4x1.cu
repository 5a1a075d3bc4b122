// 32 x 32 output tiles computed by 32 x 8 threads, 4 rows each: every B
// value loaded from shared memory feeds 4 accumulators.
constexpr int kTile = 32;

__global__ void gemmTile4(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int n,
                          int k) {
  __shared__ float a[kTile][kTile + 1], b[kTile][kTile];
  const int col = blockIdx.x * kTile + threadIdx.x, rowBase = blockIdx.y * kTile;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int t = 0; t < k; t += kTile) {
    for (int r = threadIdx.y; r < kTile; r += 8) {
      int row = rowBase + r;
      a[r][threadIdx.x] = row < m && t + threadIdx.x < k ? A[(long)row * k + t + threadIdx.x] : 0.0f;
      b[r][threadIdx.x] = t + r < k && col < n ? B[(long)(t + r) * n + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int p = 0; p < kTile; ++p) {
      const float bv = b[p][threadIdx.x];
#pragma unroll
      for (int q = 0; q < 4; ++q)
        acc[q] += a[threadIdx.y + 8 * q][p] * bv;
    }
    __syncthreads();
  }
  for (int q = 0; q < 4; ++q) {
    int row = rowBase + threadIdx.y + 8 * q;
    if (row < m && col < n)
      C[(long)row * n + col] = acc[q];
  }
}

extern "C" void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  dim3 block(kTile, 8), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemmTile4<<<grid, block>>>(A, B, C, m, n, k);
}
