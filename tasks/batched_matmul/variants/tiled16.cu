// 16 x 16 shared-memory tiles; the batch index on grid z.
constexpr int kTile = 16;

__global__ void bmmTiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int n,
                         int k) {
  __shared__ float a[kTile][kTile], b[kTile][kTile + 1];
  const float *As = A + (long)blockIdx.z * m * k, *Bs = B + (long)blockIdx.z * k * n;
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    a[threadIdx.y][threadIdx.x] = row < m && t + threadIdx.x < k ? As[row * k + t + threadIdx.x] : 0.0f;
    b[threadIdx.y][threadIdx.x] = t + threadIdx.y < k && col < n ? Bs[(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p)
      acc += a[threadIdx.y][p] * b[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    C[(long)blockIdx.z * m * n + row * n + col] = acc;
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile, batch);
  bmmTiled<<<grid, block>>>(A, B, C, m, n, k);
}
