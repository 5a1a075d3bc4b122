// GEMM with 2-D register blocking: each thread computes a 4x4 micro-tile.
#include <cuda_runtime.h>

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
gemmRegisterBlocked(int M, int N, int K, const float *A, const float *B, float *C) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int threadRow = threadIdx.x / (BN / TN);
  const int threadCol = threadIdx.x % (BN / TN);
  A += blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += blockIdx.y * BM * N + blockIdx.x * BN;
  float results[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int block = 0; block < K; block += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += blockDim.x)
      As[i % BK][i / BK] = A[(i / BK) * K + i % BK];
    for (int i = threadIdx.x; i < BK * BN; i += blockDim.x)
      Bs[i / BN][i % BN] = B[(i / BN) * N + i % BN];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[k][threadRow * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) regN[j] = Bs[k][threadCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) results[i][j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      C[(threadRow * TM + i) * N + threadCol * TN + j] = results[i][j];
}

void run(int M, int N, int K, const float *A, const float *B, float *C) {
  dim3 grid(N / 64, M / 64);
  gemmRegisterBlocked<64, 64, 8, 4, 4><<<grid, 256>>>(M, N, K, A, B, C);
}
