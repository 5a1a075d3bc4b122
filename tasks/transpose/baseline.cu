__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transposeNaive<<<grid, block>>>(in, out, rows, cols);
}
