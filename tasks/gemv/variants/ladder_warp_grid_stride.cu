// A fixed grid of 264 blocks x 8 warps; each warp takes rows with a
// grid stride (row += all warps), coalesced loads, shuffle reduction.
__global__ void gemvWarpStride(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows,
                               int cols) {
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * blockDim.x / 32;
  for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += warps) {
    const float *a = A + (long)row * cols;
    float sum = 0.0f;
    for (int j = lane; j < cols; j += 32)
      sum += a[j] * x[j];
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0)
      y[row] = sum;
  }
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  gemvWarpStride<<<264, 256>>>(A, x, y, rows, cols);
}
