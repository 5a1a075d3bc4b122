// One warp per row, a single pass: each lane keeps an online (max, sum of
// exp) pair, merged across the warp with xor shuffles.
__device__ void merge(float &m, float &s, float m2, float s2) {
  const float top = fmaxf(m, m2);
  if (top == -INFINITY)
    return;
  s = s * __expf(m - top) + s2 * __expf(m2 - top);
  m = top;
}

__global__ void crossEntropyWarpOnline(const float *__restrict__ logits, const int *__restrict__ labels,
                                       float *__restrict__ loss, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = logits + (long)r * cols;
  float m = -INFINITY, s = 0.0f;
  for (int j = lane; j < cols; j += 32)
    merge(m, s, row[j], 1.0f);
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
    const float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
    merge(m, s, m2, s2);
  }
  if (lane == 0)
    loss[r] = m + logf(s) - row[labels[r] % cols];
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyWarpOnline<<<(rows * 32 + 255) / 256, 256>>>(logits, labels, loss, rows, cols);
}
