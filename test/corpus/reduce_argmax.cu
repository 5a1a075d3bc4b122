// Argmax: values and indices reduced together in shared memory.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void argmaxKernel(const float *data, int n, float *blockMax, int *blockArg) {
  __shared__ float bestValue[512];
  __shared__ int bestIndex[512];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bestValue[tid] = i < n ? data[i] : -FLT_MAX;
  bestIndex[tid] = i;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s && bestValue[tid + s] > bestValue[tid]) {
      bestValue[tid] = bestValue[tid + s];
      bestIndex[tid] = bestIndex[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    blockMax[blockIdx.x] = bestValue[0];
    blockArg[blockIdx.x] = bestIndex[0];
  }
}

void argmax(const float *d, int n, float *m, int *a) {
  const int threads = 512;
  argmaxKernel<<<(n + threads - 1) / threads, threads>>>(d, n, m, a);
}
