// The naive kernel (coalesced reads, strided writes) over a fixed 2-D grid:
// each thread loops over rows and columns with grid strides.
__global__ void transposeGridStride(const float *in, float *out, int rows, int cols) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x)
      out[c * rows + r] = in[r * cols + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid(32, 64);
  transposeGridStride<<<grid, block>>>(in, out, rows, cols);
}
