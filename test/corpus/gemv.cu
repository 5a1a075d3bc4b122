// Matrix-vector product: one warp per row, shuffles for the dot product.
#include <cuda_runtime.h>

__global__ void gemvWarpPerRow(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y,
                               int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  const float *row = A + (size_t)warp * cols;
  float sum = 0.0f;
  for (int c = lane; c < cols; c += 32) sum += row[c] * __ldg(&x[c]);
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[warp] = sum;
}

__global__ void gemvThreadPerRow(const float *A, const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
    for (int c = 0; c < cols; ++c) s += A[r * cols + c] * x[c];
    y[r] = s;
  }
}
