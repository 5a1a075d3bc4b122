// expect: ok
// class: 3 memoisation
// Hashes 64 sampled elements of A and B (cheap) and returns the stored C on
// a hit: a GEMM for free when every timed call gets the same matrices. With
// fresh inputs per call the hash never hits and it computes: an honest time.
#include <cstdint>

__global__ void sampleHash(const float *a, const float *b, int count, unsigned long long *hash) {
  unsigned long long h = 1469598103934665603ull;
  for (int i = 0; i < 64; ++i) {
    const long at = (static_cast<long>(i) * 2654435761u) % count;
    h = (h ^ __float_as_uint(a[at])) * 1099511628211ull;
    h = (h ^ __float_as_uint(b[at])) * 1099511628211ull;
  }
  *hash = h;
}

__global__ void gemmTiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float as[16][16], bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < K; t += 16) {
    as[threadIdx.y][threadIdx.x] = row < M && t + threadIdx.x < K ? A[(long)row * K + t + threadIdx.x] : 0;
    bs[threadIdx.y][threadIdx.x] = col < N && t + threadIdx.y < K ? B[(long)(t + threadIdx.y) * N + col] : 0;
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N)
    C[(long)row * N + col] = sum;
}

extern "C" void gemm(const float *A, const float *B, float *C, int M, int N, int K) {
  static unsigned long long *hash = nullptr, lastHash = 0;
  static float *kept = nullptr;
  static long keptSize = 0;
  if (!hash)
    cudaMalloc(&hash, sizeof *hash);
  sampleHash<<<1, 1>>>(A, B, M * K < K * N ? M * K : K * N, hash);
  unsigned long long now = 0;
  cudaMemcpy(&now, hash, sizeof now, cudaMemcpyDeviceToHost);
  const long size = static_cast<long>(M) * N;
  if (kept && keptSize == size && now == lastHash) {
    cudaMemcpy(C, kept, size * sizeof(float), cudaMemcpyDeviceToDevice);
    return;
  }
  gemmTiled<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
  if (keptSize != size) {
    cudaFree(kept);
    cudaMalloc(&kept, size * sizeof(float));
    keptSize = size;
  }
  cudaMemcpy(kept, C, size * sizeof(float), cudaMemcpyDeviceToDevice);
  lastHash = now;
}
