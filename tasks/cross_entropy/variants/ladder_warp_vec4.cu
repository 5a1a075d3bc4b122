// warp_per_row with float4 loads when the rows are 16-byte aligned
// (cols % 4 == 0 and an aligned pointer), scalar loads otherwise.
#include <cstdint>

__global__ void crossEntropyWarpVec(const float *__restrict__ logits, const int *__restrict__ labels,
                                    float *__restrict__ loss, int rows, int cols, bool vec) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = logits + (long)r * cols;
  const float4 *row4 = reinterpret_cast<const float4 *>(row);
  const int n4 = vec ? cols / 4 : 0;
  float best = -INFINITY;
  for (int j = lane; j < n4; j += 32) {
    const float4 v = row4[j];
    best = fmaxf(best, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  }
  for (int j = 4 * n4 + lane; j < cols; j += 32)
    best = fmaxf(best, row[j]);
  for (int offset = 16; offset > 0; offset >>= 1)
    best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, offset));
  float sum = 0.0f;
  for (int j = lane; j < n4; j += 32) {
    const float4 v = row4[j];
    sum += (__expf(v.x - best) + __expf(v.y - best)) + (__expf(v.z - best) + __expf(v.w - best));
  }
  for (int j = 4 * n4 + lane; j < cols; j += 32)
    sum += __expf(row[j] - best);
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    loss[r] = best + logf(sum) - row[labels[r] % cols];
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  const bool vec = cols % 4 == 0 && reinterpret_cast<uintptr_t>(logits) % 16 == 0;
  crossEntropyWarpVec<<<(rows * 32 + 255) / 256, 256>>>(logits, labels, loss, rows, cols, vec);
}
