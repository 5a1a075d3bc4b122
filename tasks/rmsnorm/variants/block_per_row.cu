// One 256-thread block per row, shared-memory tree for the sum of squares.
__global__ void rmsnormBlock(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ out,
                             int cols) {
  __shared__ float partial[256];
  const float *row = x + (long)blockIdx.x * cols;
  float squares = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    squares += row[j] * row[j];
  partial[threadIdx.x] = squares;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + 1e-6f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[(long)blockIdx.x * cols + j] = row[j] * inv * w[j];
}

extern "C" void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  rmsnormBlock<<<rows, 256>>>(x, w, out, cols);
}
