// Plausible but wrong: only whole blocks are summed, the partial last block is lost.
__global__ void sumWholeBlocks(const float *x, float *out) {
  __shared__ float partial[256];
  partial[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  if (n / 256 > 0)
    sumWholeBlocks<<<n / 256, 256>>>(x, out);
}
