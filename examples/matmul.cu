// Matrix multiplication: naive and shared-memory tiled.
#include <cuda_runtime.h>

#define TILE 16

__global__ void matmulNaive(const float *A, const float *B, float *C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

__global__ void matmulTiled(const float *A, const float *B, float *C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < N / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * N + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

void multiply(const float *hostA, const float *hostB, float *hostC, int N) {
  size_t bytes = (size_t)N * N * sizeof(float);
  float *A, *B, *C;
  cudaMalloc(&A, bytes);
  cudaMalloc(&B, bytes);
  cudaMalloc(&C, bytes);
  cudaMemcpy(A, hostA, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hostB, bytes, cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE);
  dim3 grid(N / TILE, N / TILE);
  matmulNaive<<<grid, block>>>(A, B, C, N);
  matmulTiled<<<grid, block>>>(A, B, C, N);
  cudaMemcpy(hostC, C, bytes, cudaMemcpyDeviceToHost);
}
