// Two kernels instead of atomics: the first writes each 256-row strip's
// column sums to a temporary (strips x cols), the second adds the strips of
// each column. Both coalesced over columns.
constexpr int kStrip = 256;

__global__ void columnStripSums(const float *__restrict__ a, float *__restrict__ partial, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  const int first = blockIdx.y * kStrip, last = min(rows, first + kStrip);
  float sum = 0.0f;
  for (int i = first; i < last; ++i)
    sum += a[(long)i * cols + j];
  partial[(long)blockIdx.y * cols + j] = sum;
}

__global__ void columnAddStrips(const float *__restrict__ partial, float *__restrict__ out, int strips, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  float sum = 0.0f;
  for (int s = 0; s < strips; ++s)
    sum += partial[(long)s * cols + j];
  out[j] = sum;
}

extern "C" void column_sum(const float *a, float *out, int rows, int cols) {
  const int strips = (rows + kStrip - 1) / kStrip;
  float *partial;
  cudaMalloc(&partial, (size_t)strips * cols * sizeof(float));
  dim3 grid((cols + 127) / 128, strips);
  columnStripSums<<<grid, 128>>>(a, partial, rows, cols);
  columnAddStrips<<<(cols + 127) / 128, 128>>>(partial, out, strips, cols);
  cudaFree(partial);
}
