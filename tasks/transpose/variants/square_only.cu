// Plausible but wrong: indexes both matrices with 'rows', as if they were square.
__global__ void transposeSquare(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * rows + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transposeSquare<<<grid, block>>>(in, out, rows, cols);
}
