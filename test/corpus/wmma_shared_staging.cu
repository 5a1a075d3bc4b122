// WMMA with the output staged through shared memory before a bias add.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void wmmaBias(const half *a, const half *b, const float *bias, float *c, int N, int K) {
  __shared__ float staging[16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + blockIdx.y * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + k * N + blockIdx.x * 16, N);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(staging, fc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int i = threadIdx.x; i < 256; i += 32)
    c[(blockIdx.y * 16 + i / 16) * N + blockIdx.x * 16 + i % 16] = staging[i] + bias[blockIdx.x * 16 + i % 16];
}
