__global__ void dotTree(const float *x, const float *y, float *out, int n) {
  __shared__ float partial[256];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += x[i] * y[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dotTree<<<1056, 256>>>(x, y, out, n);
}
