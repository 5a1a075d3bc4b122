__global__ void squaresTree(const float *x, float *out, int n) {
  __shared__ float partial[256];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += x[i] * x[i];
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

__global__ void takeRoot(float *out) { *out = sqrtf(*out); }

extern "C" void l2_norm(const float *x, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  squaresTree<<<1056, 256>>>(x, out, n);
  takeRoot<<<1, 1>>>(out);
}
