// 128 x 128 output tiles, 16 x 16 threads, an 8 x 8 register block per
// thread (outputs strided by 16: conflict-free shared reads); depth-8 slabs,
// A stored transposed with 4 floats of padding so its stores spread over
// the banks. Each value read from shared memory feeds 8 accumulators.
constexpr int kTile = 128, kDepth = 8;

__global__ void gemmTile128(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                            int n, int k) {
  __shared__ float a[kDepth][kTile + 4], b[kDepth][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int rowBase = blockIdx.y * kTile, colBase = blockIdx.x * kTile;
  float acc[8][8] = {};
  for (int t = 0; t < k; t += kDepth) {
    for (int e = tid; e < kTile * kDepth; e += 256) {
      int r = e / kDepth, p = e % kDepth, row = rowBase + r;
      a[p][r] = row < m && t + p < k ? A[(long)row * k + t + p] : 0.0f;
      int bp = e / kTile, c = e % kTile, col = colBase + c;
      b[bp][c] = t + bp < k && col < n ? B[(long)(t + bp) * n + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kDepth; ++p) {
      float av[8], bv[8];
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        av[q] = a[p][ty + 16 * q];
        bv[q] = b[p][tx + 16 * q];
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int row = rowBase + ty + 16 * i, col = colBase + tx + 16 * j;
      if (row < m && col < n)
        C[(long)row * n + col] = acc[i][j];
    }
}

extern "C" void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  dim3 block(16, 16), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemmTile128<<<grid, block>>>(A, B, C, m, n, k);
}
