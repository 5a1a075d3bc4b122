// WMMA with the real mma.h: tensor-core use detected.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s | FileCheck %s
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void wmmaGemm(const half *a, const half *b, float *c, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + k, K);
    wmma::load_matrix_sync(fb, b + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
// CHECK: kernel wmmaGemm
// CHECK: extras: {{.*}} tensor_core=1
