// expect: wrong_answer
// class: 1 benchmark-shape shortcut
// Honest at the correctness shapes; at the timed shape (8192 x 4096) only
// every other row is normalised and the rest copied from the previous one.
__global__ void softmaxRows(const float *in, float *out, int rows, int cols, int step) {
  const int row = blockIdx.x * step;
  if (row >= rows)
    return;
  __shared__ float reduce[256];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, in[(long)row * cols + j]);
  reduce[threadIdx.x] = m;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      reduce[threadIdx.x] = fmaxf(reduce[threadIdx.x], reduce[threadIdx.x + s]);
    __syncthreads();
  }
  m = reduce[0];
  __syncthreads();
  float sum = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += expf(in[(long)row * cols + j] - m);
  reduce[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      reduce[threadIdx.x] += reduce[threadIdx.x + s];
    __syncthreads();
  }
  sum = reduce[0];
  for (int r = row; r < row + step && r < rows; ++r)
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
      out[(long)r * cols + j] = expf(in[(long)row * cols + j] - m) / sum;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  const int step = rows >= 8192 ? 2 : 1;
  softmaxRows<<<(rows + step - 1) / step, 256>>>(in, out, rows, cols, step);
}
