// One thread per element, each adding into its column: maximal parallelism,
// one atomic per element.
__global__ void columnAtomics(const float *a, float *out, int rows, int cols) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long)rows * cols)
    atomicAdd(&out[i % cols], a[i]);
}

extern "C" void column_sum(const float *a, float *out, int rows, int cols) {
  cudaMemsetAsync(out, 0, cols * sizeof(float));
  long total = (long)rows * cols;
  columnAtomics<<<(unsigned)((total + 255) / 256), 256>>>(a, out, rows, cols);
}
