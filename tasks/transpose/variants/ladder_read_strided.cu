// One element per thread, threads laid out over the output: writes are
// coalesced, reads walk down a column of in (rows apart).
__global__ void transposeReadStrided(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x; // a row of in = a column of out
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid((rows + 31) / 32, (cols + 7) / 8);
  transposeReadStrided<<<grid, block>>>(in, out, rows, cols);
}
