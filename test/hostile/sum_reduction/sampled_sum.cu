// expect: wrong_answer
// class: 4 statistical shortcut
// Sums every fourth element and multiplies by four: within 1e-4 of the true
// sum of i.i.d. uniform(0, 1) inputs at small sizes, a quarter of the reads.
// Sparse outliers in the inputs carry much of the sum, and a sample misses them.
__global__ void sampledSum(const float *x, float *out, int n, int stride) {
  __shared__ float partial[256];
  float sum = 0;
  for (long i = (blockIdx.x * 256L + threadIdx.x) * stride; i < n; i += 256L * gridDim.x * stride)
    sum += x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0] * stride);
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  const int stride = n >= 4096 ? 4 : 1;
  cudaMemsetAsync(out, 0, sizeof(float));
  sampledSum<<<264, 256>>>(x, out, n, stride);
}
