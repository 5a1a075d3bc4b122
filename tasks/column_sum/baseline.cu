// Plain CUDA: one thread per column, 128-thread blocks.
__global__ void columnKernel(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  float sum = 0.0f;
  for (int i = 0; i < rows; ++i)
    sum += a[(long)i * cols + j];
  out[j] = sum;
}

extern "C" void column_sum(const float *a, float *out, int rows, int cols) {
  columnKernel<<<(cols + 127) / 128, 128>>>(a, out, rows, cols);
}
