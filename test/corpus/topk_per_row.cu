// Top-k per row by repeated block argmax (small k), with a dynamic-shared copy.
#include <cuda_runtime.h>

__global__ void topkRows(const float *scores, int cols, int k, float *outValues, int *outIndices) {
  extern __shared__ float row[];
  __shared__ float bestV[128];
  __shared__ int bestI[128];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] = scores[blockIdx.x * cols + c];
  __syncthreads();
  for (int r = 0; r < k; ++r) {
    float v = -3.4e38f;
    int idx = -1;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
      if (row[c] > v) { v = row[c]; idx = c; }
    bestV[threadIdx.x] = v;
    bestI[threadIdx.x] = idx;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s && bestV[threadIdx.x + s] > bestV[threadIdx.x]) {
        bestV[threadIdx.x] = bestV[threadIdx.x + s];
        bestI[threadIdx.x] = bestI[threadIdx.x + s];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      outValues[blockIdx.x * k + r] = bestV[0];
      outIndices[blockIdx.x * k + r] = bestI[0];
      row[bestI[0]] = -3.4e38f;
    }
    __syncthreads();
  }
}
