// 32x32 output tile per block of 16x16 threads; each thread computes 2x2.
#define TILE 32

__global__ void gemmTiled2x2(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                             int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int rowBase = blockIdx.y * TILE, colBase = blockIdx.x * TILE;
  float acc[2][2] = {};
  for (int t = 0; t < K; t += TILE) {
    for (int i = ty; i < TILE; i += 16)
      for (int j = tx; j < TILE; j += 16) {
        const int ar = rowBase + i, ac = t + j, br = t + i, bc = colBase + j;
        As[i][j] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0f;
        Bs[i][j] = (br < K && bc < N) ? B[br * N + bc] : 0.0f;
      }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) {
      const float a0 = As[ty][k], a1 = As[ty + 16][k];
      const float b0 = Bs[k][tx], b1 = Bs[k][tx + 16];
      acc[0][0] += a0 * b0;
      acc[0][1] += a0 * b1;
      acc[1][0] += a1 * b0;
      acc[1][1] += a1 * b1;
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const int r = rowBase + ty + 16 * i, c = colBase + tx + 16 * j;
      if (r < M && c < N)
        C[r * N + c] = acc[i][j];
    }
}

extern "C" void gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  gemmTiled2x2<<<grid, block>>>(A, B, C, M, N, K);
}
