// Batched GEMM: 32 x 32 output tiles by 32 x 8 threads, 4 rows per thread
// accumulated in registers; block barriers through cooperative groups.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kT = 32;
constexpr int kRowsPerThread = 4;

__global__ void bmm_regs(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int n,
                         int k) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float tileA[kT][kT + 1];
  __shared__ float tileB[kT][kT];
  const float *a = A + (long)blockIdx.z * m * k;
  const float *b = B + (long)blockIdx.z * k * n;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * kT + tx, row0 = blockIdx.y * kT;
  float acc[kRowsPerThread] = {};
  for (int t = 0; t < k; t += kT) {
    for (int r = ty; r < kT; r += kT / kRowsPerThread) {
      const int row = row0 + r;
      tileA[r][tx] = row < m && t + tx < k ? a[(long)row * k + t + tx] : 0.0f;
      tileB[r][tx] = t + r < k && col < n ? b[(long)(t + r) * n + col] : 0.0f;
    }
    cta.sync();
#pragma unroll 8
    for (int p = 0; p < kT; ++p) {
      const float bv = tileB[p][tx];
#pragma unroll
      for (int q = 0; q < kRowsPerThread; ++q)
        acc[q] += tileA[ty + q * (kT / kRowsPerThread)][p] * bv;
    }
    cta.sync();
  }
#pragma unroll
  for (int q = 0; q < kRowsPerThread; ++q) {
    const int row = row0 + ty + q * (kT / kRowsPerThread);
    if (row < m && col < n)
      C[(long)blockIdx.z * m * n + (long)row * n + col] = acc[q];
  }
}

extern "C" void batched_matmul(const float *A, const float *B, float *C, int batch, int m, int n, int k) {
  dim3 block(kT, kT / kRowsPerThread);
  dim3 grid((n + kT - 1) / kT, (m + kT - 1) / kT, batch);
  bmm_regs<<<grid, block>>>(A, B, C, m, n, k);
}
