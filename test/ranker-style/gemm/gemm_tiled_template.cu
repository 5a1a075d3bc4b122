/// \file
/// Shared-memory tiled SGEMM, tile size as a template parameter
/// (instantiated with 16): each TILE x TILE block of C is built from
/// K / TILE pairs of tiles staged in shared memory.

/// Loads A(row, col) or 0 outside the matrix.
__device__ __forceinline__ float load_or_zero(const float *__restrict__ m, int row, int col, int rows, int cols) {
  return (row < rows && col < cols) ? m[row * cols + col] : 0.0f;
}

template <int TILE>
__global__ void sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                            int N, int K) {
  __shared__ float sa[TILE][TILE];
  __shared__ float sb[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    sa[ty][tx] = load_or_zero(A, row, k0 + tx, M, K);
    sb[ty][tx] = load_or_zero(B, k0 + ty, col, K, N);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk)
      acc += sa[ty][kk] * sb[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}

extern "C" void gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  constexpr int T = 16;
  sgemm_tiled<T><<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}
