// Plain CUDA: one thread per cell, 16 x 16 blocks, x over columns.
__global__ void heatKernel(const float *u, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols)
    return;
  long at = (long)i * cols + j;
  if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
    out[at] = u[at];
  else
    out[at] = u[at] + 0.2f * (u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1] - 4.0f * u[at]);
}

extern "C" void heat_2d(const float *u, float *out, int rows, int cols) {
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  heatKernel<<<grid, block>>>(u, out, rows, cols);
}
