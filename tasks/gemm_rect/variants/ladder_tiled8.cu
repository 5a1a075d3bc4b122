// 8 x 8 shared-memory tiles, one output per thread: 64-thread blocks, each
// element fetched from global memory is reused only 8 times.
constexpr int kTile = 8;

__global__ void gemmTiles8(const float *A, const float *B, float *C, int m, int n, int k) {
  __shared__ float a[kTile][kTile], b[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    a[threadIdx.y][threadIdx.x] = row < m && t + threadIdx.x < k ? A[(long)row * k + t + threadIdx.x] : 0.0f;
    b[threadIdx.y][threadIdx.x] = t + threadIdx.y < k && col < n ? B[(long)(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p)
      acc += a[threadIdx.y][p] * b[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    C[(long)row * n + col] = acc;
}

extern "C" void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemmTiles8<<<grid, block>>>(A, B, C, m, n, k);
}
