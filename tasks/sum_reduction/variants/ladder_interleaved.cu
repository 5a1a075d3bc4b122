// The first textbook reduction: one element per thread, a shared-memory tree
// with interleaved addressing (tid % (2 s) == 0): divergent warps and
// strided shared accesses; one atomic per block.
#define BLOCK 256

__global__ void sumInterleaved(const float *x, float *out, int n) {
  __shared__ float partial[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * BLOCK + tid;
  partial[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < BLOCK; s *= 2) {
    if (tid % (2 * s) == 0)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, partial[0]);
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  sumInterleaved<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, out, n);
}
