// One block per row: the row (padded to a power of two with -inf) is sorted
// descending in shared memory by a bitonic network; the first 32 are the
// answer. Rows longer than 2048 fall back to a per-thread insertion list.
constexpr int kMax = 2048;

__global__ void topkBitonic(const float *__restrict__ x, float *__restrict__ out, int cols, int padded) {
  __shared__ float s[kMax];
  const float *row = x + (long)blockIdx.x * cols;
  for (int t = threadIdx.x; t < padded; t += blockDim.x)
    s[t] = t < cols ? row[t] : -INFINITY;
  __syncthreads();
  for (int k = 2; k <= padded; k <<= 1)
    for (int j = k / 2; j > 0; j >>= 1) {
      for (int p = threadIdx.x; p < padded / 2; p += blockDim.x) {
        int i = 2 * j * (p / j) + p % j, l = i + j;
        bool down = (i & k) == 0;
        float a = s[i], b = s[l];
        if ((a < b) == down) {
          s[i] = b;
          s[l] = a;
        }
      }
      __syncthreads();
    }
  for (int t = threadIdx.x; t < 32; t += blockDim.x)
    out[(long)blockIdx.x * 32 + t] = s[t];
}

__global__ void topkInsertion(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float list[32];
  for (int i = 0; i < 32; ++i)
    list[i] = -INFINITY;
  for (int j = 0; j < cols; ++j) {
    float v = x[(long)r * cols + j];
    int i = 31;
    if (v <= list[31])
      continue;
    while (i > 0 && list[i - 1] < v) {
      list[i] = list[i - 1];
      --i;
    }
    list[i] = v;
  }
  for (int i = 0; i < 32; ++i)
    out[(long)r * 32 + i] = list[i];
}

extern "C" void topk(const float *x, float *out, int rows, int cols) {
  int padded = 32;
  while (padded < cols)
    padded <<= 1;
  if (padded > kMax) {
    topkInsertion<<<(rows + 127) / 128, 128>>>(x, out, rows, cols);
    return;
  }
  topkBitonic<<<rows, padded / 2 < 512 ? padded / 2 : 512>>>(x, out, cols, padded);
}
