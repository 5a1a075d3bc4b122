// L2 norm in two passes: per-block partial sums of squares, then one block.
#include <cuda_runtime.h>

__global__ void partialSquares(const float *x, float *partial, int n) {
  __shared__ float s[1024];
  int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  float v = 0.0f;
  if (i < n) v += x[i] * x[i];
  if (i + blockDim.x < n) v += x[i + blockDim.x] * x[i + blockDim.x];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void finish(const float *partial, int blocks, float *norm) {
  float total = 0.0f;
  if (threadIdx.x == 0) {
    for (int b = 0; b < blocks; ++b) total += partial[b];
    *norm = sqrtf(total);
  }
}

float l2(const float *x, float *partial, float *norm, int n) {
  int blocks = (n + 2047) / 2048;
  partialSquares<<<blocks, 1024>>>(x, partial, n);
  finish<<<1, 32>>>(partial, blocks, norm);
  float h;
  cudaMemcpy(&h, norm, sizeof(float), cudaMemcpyDeviceToHost);
  return h;
}
