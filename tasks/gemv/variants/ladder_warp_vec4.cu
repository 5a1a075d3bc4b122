// One warp per row with float4 loads of A and x when every row starts on a
// 16-byte boundary (cols % 4 == 0, aligned pointers), scalar loads
// otherwise; shuffle reduction.
#include <cstdint>

__global__ void gemvWarpVec(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows,
                            int cols, bool vec) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *a = A + (long)row * cols;
  float sum = 0.0f;
  if (vec) {
    const float4 *a4 = reinterpret_cast<const float4 *>(a), *x4 = reinterpret_cast<const float4 *>(x);
    for (int j = lane; j < cols / 4; j += 32) {
      float4 u = a4[j], v = x4[j];
      sum += u.x * v.x + u.y * v.y + u.z * v.z + u.w * v.w;
    }
  } else {
    for (int j = lane; j < cols; j += 32)
      sum += a[j] * x[j];
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    y[row] = sum;
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  const bool vec = cols % 4 == 0 && (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(x)) % 16 == 0;
  gemvWarpVec<<<(rows * 32 + 255) / 256, 256>>>(A, x, y, rows, cols, vec);
}
