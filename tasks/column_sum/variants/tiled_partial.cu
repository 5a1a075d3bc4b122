// 2-D grid: x over columns (coalesced), y over 256-row strips; each thread
// sums its strip in a register and adds it with one atomic.
__global__ void columnStrips(const float *__restrict__ a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  int first = blockIdx.y * 256, last = min(rows, first + 256);
  float sum = 0.0f;
  for (int i = first; i < last; ++i)
    sum += a[(long)i * cols + j];
  atomicAdd(&out[j], sum);
}

extern "C" void column_sum(const float *a, float *out, int rows, int cols) {
  cudaMemsetAsync(out, 0, cols * sizeof(float));
  dim3 grid((cols + 127) / 128, (rows + 255) / 256);
  columnStrips<<<grid, 128>>>(a, out, rows, cols);
}
