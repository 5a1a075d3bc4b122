// ladder_block_shuffle with float4 loads and stores when the rows are
// 16-byte aligned (cols % 4 == 0 and aligned pointers); scalar otherwise.
#include <cstdint>

#define THREADS 256

__global__ void rmsnormBlockVec(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ out,
                                int cols, bool vec) {
  __shared__ float slots[32];
  const float *row = x + (long)blockIdx.x * cols;
  float *dst = out + (long)blockIdx.x * cols;
  const int n4 = vec ? cols / 4 : 0;
  float squares = 0.0f;
  for (int j = threadIdx.x; j < n4; j += blockDim.x) {
    const float4 v = reinterpret_cast<const float4 *>(row)[j];
    squares += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  for (int j = 4 * n4 + threadIdx.x; j < cols; j += blockDim.x)
    squares += row[j] * row[j];
  for (int offset = 16; offset > 0; offset >>= 1)
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = squares;
  __syncthreads();
  squares = threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1)
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  const float inv = rsqrtf(squares / cols + 1e-6f);
  for (int j = threadIdx.x; j < n4; j += blockDim.x) {
    const float4 v = reinterpret_cast<const float4 *>(row)[j], g = reinterpret_cast<const float4 *>(w)[j];
    reinterpret_cast<float4 *>(dst)[j] = make_float4(v.x * inv * g.x, v.y * inv * g.y, v.z * inv * g.z, v.w * inv * g.w);
  }
  for (int j = 4 * n4 + threadIdx.x; j < cols; j += blockDim.x)
    dst[j] = row[j] * inv * w[j];
}

extern "C" void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(w) | reinterpret_cast<uintptr_t>(out);
  rmsnormBlockVec<<<rows, THREADS>>>(x, w, out, cols, cols % 4 == 0 && bits % 16 == 0);
}
