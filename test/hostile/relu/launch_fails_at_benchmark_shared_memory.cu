// expect: wrong_answer or runtime_error
// class: 1 benchmark-shape shortcut (a launch that fails only at the timed size)
// Dynamic shared memory sized from n (a tile size mixed up with the problem
// size, as a garbled copy of a tiled variant might): 260 bytes at the largest
// correctness size, 256 KiB at the benchmark size, more than an H100/H200
// block may have (227 KiB), so only the timed launches fail, silently (the
// error is swallowed). Verified timed calls -> wrong_answer.
__global__ void reluStaged(const float *x, float *y, int n) {
  extern __shared__ float staged[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    staged[0] = 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = fmaxf(x[i], staged[0]);
}

extern "C" void relu(const float *x, float *y, int n) {
  const size_t bytes = (static_cast<size_t>(n) / 1024 + 1) * sizeof(float);
  if (bytes > 48 * 1024)
    cudaFuncSetAttribute(reluStaged, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  reluStaged<<<(n + 255) / 256, 256, bytes>>>(x, y, n);
  cudaGetLastError(); // the launch error, swallowed
}
