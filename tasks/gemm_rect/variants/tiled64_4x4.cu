// 64 x 64 output tiles, 16 x 16 threads, a 4 x 4 register block per thread
// (outputs strided by 16 so shared-memory reads stay conflict-free).
constexpr int kTile = 64, kDepth = 16;

__global__ void gemmTile64(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                           int n, int k) {
  __shared__ float a[kDepth][kTile + 4], b[kDepth][kTile + 4];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int rowBase = blockIdx.y * kTile, colBase = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int t = 0; t < k; t += kDepth) {
    // 64 x 16 of A (stored transposed) and 16 x 64 of B: 4 loads each per thread.
    for (int e = tid; e < kTile * kDepth; e += 256) {
      int r = e / kDepth, p = e % kDepth;
      int row = rowBase + r;
      a[p][r] = row < m && t + p < k ? A[(long)row * k + t + p] : 0.0f;
      int bp = e / kTile, c = e % kTile;
      int col = colBase + c;
      b[bp][c] = t + bp < k && col < n ? B[(long)(t + bp) * n + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kDepth; ++p) {
      float av[4], bv[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        av[q] = a[p][ty + 16 * q];
        bv[q] = b[p][tx + 16 * q];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int row = rowBase + ty + 16 * i, col = colBase + tx + 16 * j;
      if (row < m && col < n)
        C[(long)row * n + col] = acc[i][j];
    }
}

extern "C" void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  dim3 block(16, 16), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemmTile64<<<grid, block>>>(A, B, C, m, n, k);
}
