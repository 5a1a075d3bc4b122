// A fixed grid (1024 blocks of 256): each thread accumulates a grid-strided
// slice in a register, then a shared-memory tree with sequential addressing;
// one atomic per block.
#define THREADS 256
#define GRID 1024

__global__ void sumGridStride(const float *x, float *out, int n) {
  __shared__ float partial[THREADS];
  float sum = 0.0f;
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
    sum += x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  sumGridStride<<<GRID, THREADS>>>(x, out, n);
}
