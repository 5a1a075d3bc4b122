// Plain CUDA: one block-level tree per 128 products, one atomic per block.
__global__ void dotKernel(const float *x, const float *y, float *out, int n) {
  __shared__ float partial[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] * y[i] : 0.0f;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dotKernel<<<(n + 127) / 128, 128>>>(x, y, out, n);
}
