// One warp per row, three coalesced passes (max, sum of exponentials, write)
// with xor-shuffle reductions; 8 rows per 256-thread block.
__global__ void softmaxWarp3(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *x = in + (size_t)row * cols;
  float *y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32)
    m = fmaxf(m, x[c]);
  for (int offset = 16; offset > 0; offset >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  float sum = 0.0f;
  for (int c = lane; c < cols; c += 32)
    sum += __expf(x[c] - m);
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float inv = 1.0f / sum;
  for (int c = lane; c < cols; c += 32)
    y[c] = __expf(x[c] - m) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  softmaxWarp3<<<(rows * 32 + 255) / 256, 256>>>(in, out, rows, cols);
}
