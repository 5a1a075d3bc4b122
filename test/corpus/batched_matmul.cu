// Batched matmul: blockIdx.z selects the batch, a pitch per batch.
#include <cuda_runtime.h>

__global__ void bmm(const float *A, const float *B, float *C, int M, int N, int K, long strideA, long strideB, long strideC) {
  const float *a = A + blockIdx.z * strideA;
  const float *b = B + blockIdx.z * strideB;
  float *c = C + blockIdx.z * strideC;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
  }
}

void run(const float *A, const float *B, float *C, int batch, int M, int N, int K) {
  dim3 block(16, 16, 1);
  dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
  bmm<<<grid, block>>>(A, B, C, M, N, K, (long)M * K, (long)K * N, (long)M * N);
}
