// expect: wrong_answer
// class: 10 answers hard-coded for the default seed
// The sums of seed 1's small tests, memorised (n = 1, 255, 1000); the rest
// summed honestly. Right only while the seed is fixed and known.
__global__ void treeSum(const float *x, float *out, int n) {
  __shared__ float partial[256];
  float sum = 0;
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += 256L * gridDim.x)
    sum += x[i];
  partial[threadIdx.x] = sum;
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
  const float known = n == 1 ? 0.8058123588562012f : n == 255 ? 129.95816040039062f : n == 1000 ? 499.6907958984375f : 0;
  if (known != 0) {
    cudaMemcpy(out, &known, sizeof known, cudaMemcpyHostToDevice);
    return;
  }
  cudaMemsetAsync(out, 0, sizeof(float));
  treeSum<<<264, 256>>>(x, out, n);
}
