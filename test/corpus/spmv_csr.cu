// CSR sparse matrix-vector product: scalar (thread per row) and vector (warp per row).
#include <cuda_runtime.h>

__global__ void spmvScalar(int rows, const int *rowPtr, const int *colIdx, const float *vals, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float dot = 0.0f;
    for (int j = rowPtr[row]; j < rowPtr[row + 1]; ++j) dot += vals[j] * x[colIdx[j]];
    y[row] = dot;
  }
}

__global__ void spmvVector(int rows, const int *rowPtr, const int *colIdx, const float *vals, const float *x, float *y) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float dot = 0.0f;
  for (int j = rowPtr[warp] + lane; j < rowPtr[warp + 1]; j += 32) dot += vals[j] * __ldg(&x[colIdx[j]]);
  for (int o = 16; o > 0; o /= 2) dot += __shfl_down_sync(0xffffffff, dot, o);
  if (lane == 0) y[warp] = dot;
}
