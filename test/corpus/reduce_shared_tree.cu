// Block-level sum reduction with a shared-memory tree and a final atomic.
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void reduceSum(const float *__restrict__ input, float *__restrict__ total, int n) {
  __shared__ float partial[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (BLOCK * 2) + tid;
  float sum = 0.0f;
  if (i < n) sum = input[i];
  if (i + BLOCK < n) sum += input[i + BLOCK];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned stride = BLOCK / 2; stride > 32; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid < 32) {
    volatile float *v = partial;
    v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
    v[tid] += v[tid + 4];
    v[tid] += v[tid + 2];
    v[tid] += v[tid + 1];
  }
  if (tid == 0) atomicAdd(total, partial[0]);
}

float launchReduce(const float *d_in, float *d_out, int n) {
  int blocks = (n + BLOCK * 2 - 1) / (BLOCK * 2);
  cudaMemset(d_out, 0, sizeof(float));
  reduceSum<<<blocks, BLOCK>>>(d_in, d_out, n);
  float result = 0.0f;
  cudaMemcpy(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost);
  return result;
}
