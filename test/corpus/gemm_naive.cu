// Naive GEMM: one output element per thread, row-major A, B, C.
#include <cuda_runtime.h>

__global__ void gemmNaive(int M, int N, int K, const float *A, const float *B, float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

void gemm(int M, int N, int K, const float *A, const float *B, float *C) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  gemmNaive<<<grid, block>>>(M, N, K, A, B, C);
}
