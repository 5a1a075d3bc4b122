// Online softmax, one warp per row (running max and rescaled sum).
#include <cuda_runtime.h>

__global__ void onlineSoftmax(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float m = -1e30f, d = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    float v = x[row * cols + c];
    float mNew = fmaxf(m, v);
    d = d * __expf(m - mNew) + __expf(v - mNew);
    m = mNew;
  }
  for (int o = 16; o > 0; o /= 2) {
    float mOther = __shfl_xor_sync(0xffffffff, m, o);
    float dOther = __shfl_xor_sync(0xffffffff, d, o);
    float mNew = fmaxf(m, mOther);
    d = d * __expf(m - mNew) + dOther * __expf(mOther - mNew);
    m = mNew;
  }
  for (int c = lane; c < cols; c += 32) y[row * cols + c] = __expf(x[row * cols + c] - m) / d;
}
