// One warp per row, float4 loads when the rows are 16-byte aligned, and the
// row kept in registers (8 float4 per lane: rows up to 1024 floats) between
// the sum of squares and the output: one read of x instead of two. Longer
// rows re-read the rest; unaligned rows take scalar loads.
#include <cstdint>

constexpr int kCached = 8;

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void rmsnormWarpRegs(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ out,
                                int rows, int cols, bool vec) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float *dst = out + (long)r * cols;
  if (vec) {
    const int n4 = cols / 4;
    const float4 *row4 = reinterpret_cast<const float4 *>(row), *w4 = reinterpret_cast<const float4 *>(w);
    float4 cache[kCached];
    float squares = 0.0f;
#pragma unroll
    for (int c = 0; c < kCached; ++c) {
      const int j = lane + 32 * c;
      cache[c] = j < n4 ? row4[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      squares += cache[c].x * cache[c].x + cache[c].y * cache[c].y + cache[c].z * cache[c].z + cache[c].w * cache[c].w;
    }
    for (int j = lane + 32 * kCached; j < n4; j += 32) {
      const float4 v = row4[j];
      squares += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    const float inv = rsqrtf(warpSum(squares) / cols + 1e-6f);
#pragma unroll
    for (int c = 0; c < kCached; ++c) {
      const int j = lane + 32 * c;
      if (j < n4) {
        const float4 g = w4[j];
        reinterpret_cast<float4 *>(dst)[j] =
            make_float4(cache[c].x * inv * g.x, cache[c].y * inv * g.y, cache[c].z * inv * g.z, cache[c].w * inv * g.w);
      }
    }
    for (int j = lane + 32 * kCached; j < n4; j += 32) {
      const float4 v = row4[j], g = w4[j];
      reinterpret_cast<float4 *>(dst)[j] = make_float4(v.x * inv * g.x, v.y * inv * g.y, v.z * inv * g.z, v.w * inv * g.w);
    }
  } else {
    float squares = 0.0f;
    for (int j = lane; j < cols; j += 32)
      squares += row[j] * row[j];
    const float inv = rsqrtf(warpSum(squares) / cols + 1e-6f);
    for (int j = lane; j < cols; j += 32)
      dst[j] = row[j] * inv * w[j];
  }
}

extern "C" void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(w) | reinterpret_cast<uintptr_t>(out);
  rmsnormWarpRegs<<<(rows * 32 + 255) / 256, 256>>>(x, w, out, rows, cols, cols % 4 == 0 && bits % 16 == 0);
}
