// Plain CUDA: one thread per row, 128-thread blocks.
__global__ void gemvKernel(const float *A, const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j)
    sum += A[(long)i * cols + j] * x[j];
  y[i] = sum;
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvKernel<<<(rows + 127) / 128, 128>>>(A, x, y, rows, cols);
}
