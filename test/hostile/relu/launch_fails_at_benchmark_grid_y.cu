// expect: wrong_answer or runtime_error
// class: 1 benchmark-shape shortcut (a launch that fails only at the timed size)
// The blocks go in grid.y: 257 of them at the largest correctness size
// (n = 65,537), 262,144 at the benchmark size (n = 67,108,864), past the
// 65,535 limit of grid.y, so the timed launches fail with
// cudaErrorInvalidConfiguration and write nothing. The entry swallows the
// error (cudaGetLastError) so the worker's own check after its
// cudaDeviceSynchronize sees none. A judge that timed the benchmark calls
// without verifying them would charge ~0 ms. This judge pre-fills the outputs
// with 0xFF (NaN) and compares every element of every timed call with the GPU
// baseline's, so NaN != expected -> wrong_answer (runtime_error if the error
// were left for the worker to see).
__global__ void reluRows(const float *x, float *y, int n) {
  int i = blockIdx.y * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float *x, float *y, int n) {
  dim3 grid(1, (n + 255) / 256);
  reluRows<<<grid, 256>>>(x, y, n);
  cudaGetLastError(); // the launch error, swallowed
}
