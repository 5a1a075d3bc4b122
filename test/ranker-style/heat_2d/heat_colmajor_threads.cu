// heat_2d with the 2-D thread grid transposed: threadIdx.x runs down the
// rows, so every warp-wide load and store is strided by `cols`.
__device__ float heat_update(const float *u, long at, int cols) {
  return u[at] + 0.2f * (u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1] - 4.0f * u[at]);
}

__global__ void heat_transposed(const float *u, float *out, int rows, int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols)
    return;
  const long at = (long)i * cols + j;
  const bool edge = i == 0 || j == 0 || i == rows - 1 || j == cols - 1;
  out[at] = edge ? u[at] : heat_update(u, at, cols);
}

extern "C" void heat_2d(const float *u, float *out, int rows, int cols) {
  dim3 threads(32, 8);
  dim3 blocks((rows + threads.x - 1) / threads.x, (cols + threads.y - 1) / threads.y);
  heat_transposed<<<blocks, threads>>>(u, out, rows, cols);
}
