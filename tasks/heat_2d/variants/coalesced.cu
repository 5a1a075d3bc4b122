__global__ void heatCoalesced(const float *__restrict__ u, float *__restrict__ out, int rows, int cols) {
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
  dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
  heatCoalesced<<<grid, block>>>(u, out, rows, cols);
}
