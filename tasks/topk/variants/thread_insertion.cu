// One thread per row keeps its 32 largest values sorted (descending) in
// local memory and inserts each new value that beats the smallest.
__global__ void topkInsertion(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float list[32];
  for (int i = 0; i < 32; ++i)
    list[i] = -INFINITY;
  const float *row = x + (long)r * cols;
  for (int j = 0; j < cols; ++j) {
    float v = row[j];
    if (v <= list[31])
      continue;
    int i = 31;
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
  topkInsertion<<<(rows + 255) / 256, 256>>>(x, out, rows, cols);
}
