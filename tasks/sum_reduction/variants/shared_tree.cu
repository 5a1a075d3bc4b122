#define BLOCK 256

__global__ void sumTree(const float *x, float *out, int n) {
  __shared__ float partial[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (BLOCK * 2) + tid;
  float v = 0.0f;
  if (i < n)
    v = x[i];
  if (i + BLOCK < n)
    v += x[i + BLOCK];
  partial[tid] = v;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, partial[0]);
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  sumTree<<<(n + BLOCK * 2 - 1) / (BLOCK * 2), BLOCK>>>(x, out, n);
}
