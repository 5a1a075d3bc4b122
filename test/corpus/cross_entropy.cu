// Cross-entropy loss per row with a log-sum-exp and a global atomic mean.
#include <cuda_runtime.h>

__global__ void crossEntropy(const float *logits, const int *labels, float *loss, int classes, int rows) {
  int row = blockIdx.x;
  const float *l = logits + (size_t)row * classes;
  __shared__ float buf[256];
  float m = -1e30f;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, l[c]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  m = buf[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) sum += expf(l[c] - m);
  buf[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, (logf(buf[0]) + m - l[labels[row]]) / rows);
}
