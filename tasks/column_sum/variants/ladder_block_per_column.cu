// One 256-thread block per column: the threads stride down the column (a
// warp's loads are cols floats apart), then a shared-memory tree.
#define THREADS 256

__global__ void columnBlock(const float *a, float *out, int rows, int cols) {
  __shared__ float partial[THREADS];
  const int j = blockIdx.x;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < rows; i += THREADS)
    sum += a[(long)i * cols + j];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[j] = partial[0];
}

extern "C" void column_sum(const float *a, float *out, int rows, int cols) {
  columnBlock<<<cols, THREADS>>>(a, out, rows, cols);
}
