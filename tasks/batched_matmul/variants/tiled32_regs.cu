// 32 x 32 tiles with 32 x 8 threads, 4 rows per thread in registers; batch on grid z.
constexpr int kTile = 32;

__global__ void bmmRegs(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int n,
                        int k) {
  __shared__ float a[kTile][kTile + 1], b[kTile][kTile];
  const float *As = A + (long)blockIdx.z * m * k, *Bs = B + (long)blockIdx.z * k * n;
  const int col = blockIdx.x * kTile + threadIdx.x, rowBase = blockIdx.y * kTile;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int t = 0; t < k; t += kTile) {
    for (int r = threadIdx.y; r < kTile; r += 8) {
      int row = rowBase + r;
      a[r][threadIdx.x] = row < m && t + threadIdx.x < k ? As[row * k + t + threadIdx.x] : 0.0f;
      b[r][threadIdx.x] = t + r < k && col < n ? Bs[(t + r) * n + col] : 0.0f;
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
      C[(long)blockIdx.z * m * n + row * n + col] = acc[q];
  }
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  dim3 block(kTile, 8), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile, batch);
  bmmRegs<<<grid, block>>>(A, B, C, m, n, k);
}
