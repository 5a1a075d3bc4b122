// WMMA: tensor-core operations counted, tile loads are warp-cooperative.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"
using namespace nvcuda;

__global__ void wmmaTile(const float *a, const float *b, float *c, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, float, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, float, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float, void> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k = 0; k < ld; k += 16) {
    wmma::load_matrix_sync(fa, a + k, ld);
    wmma::load_matrix_sync(fb, b + k, ld);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c, fc, ld, wmma::mem_row_major);
}
// CHECK: kernel wmmaTile
// CHECK: extras: {{.*}} tensor_core=1
