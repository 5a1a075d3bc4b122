__global__ void sumBaseline(const float *x, float *out, int n) {
  __shared__ float partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] : 0.0f;
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
  sumBaseline<<<(n + 255) / 256, 256>>>(x, out, n);
}
