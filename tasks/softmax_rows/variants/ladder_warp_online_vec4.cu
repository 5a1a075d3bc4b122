// warp_online with float4 loads and stores when the rows are 16-byte aligned
// (cols % 4 == 0 and aligned pointers), scalar otherwise: one read pass
// for the online (max, sum), one read-and-write pass.
#include <cstdint>

__device__ void online(float &m, float &d, float v) {
  const float mNew = fmaxf(m, v);
  d = d * __expf(m - mNew) + __expf(v - mNew);
  m = mNew;
}

__global__ void softmaxWarpVec(const float *__restrict__ in, float *__restrict__ out, int rows, int cols, bool vec) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *x = in + (size_t)row * cols;
  float *y = out + (size_t)row * cols;
  const int n4 = vec ? cols / 4 : 0;
  float m = -INFINITY, d = 0.0f;
  for (int j = lane; j < n4; j += 32) {
    const float4 v = reinterpret_cast<const float4 *>(x)[j];
    online(m, d, v.x);
    online(m, d, v.y);
    online(m, d, v.z);
    online(m, d, v.w);
  }
  for (int c = 4 * n4 + lane; c < cols; c += 32)
    online(m, d, x[c]);
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float mOther = __shfl_xor_sync(0xffffffffu, m, offset);
    const float dOther = __shfl_xor_sync(0xffffffffu, d, offset);
    const float mNew = fmaxf(m, mOther);
    d = (m == -INFINITY ? 0.0f : d * __expf(m - mNew)) + (mOther == -INFINITY ? 0.0f : dOther * __expf(mOther - mNew));
    m = mNew;
  }
  const float inv = 1.0f / d;
  for (int j = lane; j < n4; j += 32) {
    const float4 v = reinterpret_cast<const float4 *>(x)[j];
    reinterpret_cast<float4 *>(y)[j] =
        make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv);
  }
  for (int c = 4 * n4 + lane; c < cols; c += 32)
    y[c] = __expf(x[c] - m) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  const bool vec = cols % 4 == 0 && (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 16 == 0;
  softmaxWarpVec<<<(rows * 32 + 255) / 256, 256>>>(in, out, rows, cols, vec);
}
