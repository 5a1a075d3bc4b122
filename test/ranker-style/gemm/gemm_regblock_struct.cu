// SGEMM with a 64 x 64 block tile and a 4 x 4 register tile per thread
// (16 x 16 threads). Tile geometry lives in a struct of constants; the A
// slab is stored transposed (k-major) so both operands are read along rows
// of shared memory.
struct Geometry {
  static constexpr int BM = 64, BN = 64, BK = 16;
  static constexpr int TM = 4, TN = 4;
  static constexpr int THREADS = (BM / TM) * (BN / TN);
};

__global__ void sgemmRegBlock(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                              int N, int K) {
  using G = Geometry;
  __shared__ float As[G::BK][G::BM + 1];
  __shared__ float Bs[G::BK][G::BN];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int rowBase = blockIdx.y * G::BM, colBase = blockIdx.x * G::BN;
  float acc[G::TM][G::TN] = {};
  for (int k0 = 0; k0 < K; k0 += G::BK) {
    for (int e = tid; e < G::BM * G::BK; e += G::THREADS) {
      const int r = e / G::BK, kk = e % G::BK;
      As[kk][r] = (rowBase + r < M && k0 + kk < K) ? A[(rowBase + r) * K + k0 + kk] : 0.0f;
    }
    for (int e = tid; e < G::BK * G::BN; e += G::THREADS) {
      const int kk = e / G::BN, c = e % G::BN;
      Bs[kk][c] = (k0 + kk < K && colBase + c < N) ? B[(k0 + kk) * N + colBase + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < G::BK; ++kk) {
      float a[G::TM], b[G::TN];
#pragma unroll
      for (int i = 0; i < G::TM; ++i)
        a[i] = As[kk][threadIdx.y + 16 * i];
#pragma unroll
      for (int j = 0; j < G::TN; ++j)
        b[j] = Bs[kk][threadIdx.x + 16 * j];
#pragma unroll
      for (int i = 0; i < G::TM; ++i)
#pragma unroll
        for (int j = 0; j < G::TN; ++j)
          acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < G::TM; ++i)
#pragma unroll
    for (int j = 0; j < G::TN; ++j) {
      const int r = rowBase + threadIdx.y + 16 * i, c = colBase + threadIdx.x + 16 * j;
      if (r < M && c < N)
        C[r * N + c] = acc[i][j];
    }
}

extern "C" void gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + Geometry::BN - 1) / Geometry::BN, (M + Geometry::BM - 1) / Geometry::BM);
  sgemmRegBlock<<<grid, block>>>(A, B, C, M, N, K);
}
