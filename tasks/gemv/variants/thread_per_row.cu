// One thread per row: a warp's 32 loads are cols floats apart (uncoalesced).
__global__ void gemvRows(const float *A, const float *x, float *y, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j)
    sum += A[(long)i * cols + j] * x[j];
  y[i] = sum;
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvRows<<<(rows + 255) / 256, 256>>>(A, x, y, rows, cols);
}
