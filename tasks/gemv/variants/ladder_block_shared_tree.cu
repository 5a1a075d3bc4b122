// One 128-thread block per row, scalar coalesced loads, then a shared-memory
// tree reduction (no warp shuffles).
#define THREADS 128

__global__ void gemvBlockTree(const float *A, const float *x, float *y, int cols) {
  __shared__ float partial[THREADS];
  const float *a = A + (long)blockIdx.x * cols;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += THREADS)
    sum += a[j] * x[j];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = partial[0];
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvBlockTree<<<rows, THREADS>>>(A, x, y, cols);
}
