// One warp per row: each lane keeps the 32 largest of its strided share
// (sorted, descending); then 32 rounds in which the warp finds the largest
// head among the lanes (xor shuffles) and the winning lane advances.
__global__ void topkWarp(const float *__restrict__ x, float *__restrict__ out, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  float list[32];
  for (int i = 0; i < 32; ++i)
    list[i] = -INFINITY;
  const float *row = x + (long)r * cols;
  for (int j = lane; j < cols; j += 32) {
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
  int head = 0;
  for (int round = 0; round < 32; ++round) {
    float mine = head < 32 ? list[head] : -INFINITY;
    float best = mine;
    int owner = lane;
    for (int offset = 16; offset > 0; offset >>= 1) {
      float other = __shfl_xor_sync(0xffffffffu, best, offset);
      int otherOwner = __shfl_xor_sync(0xffffffffu, owner, offset);
      if (other > best || (other == best && otherOwner < owner)) {
        best = other;
        owner = otherOwner;
      }
    }
    if (lane == owner)
      ++head;
    if (lane == 0)
      out[(long)r * 32 + round] = best;
  }
}

extern "C" void topk(const float *x, float *out, int rows, int cols) {
  topkWarp<<<(rows * 32 + 255) / 256, 256>>>(x, out, rows, cols);
}
