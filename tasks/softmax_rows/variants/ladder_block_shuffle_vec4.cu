// ladder_block_shuffle with float4 loads and stores when the rows are 16-byte
// aligned (cols % 4 == 0 and aligned pointers); scalar otherwise.
#include <cstdint>

#define THREADS 256

__device__ float warpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ float blockMax(float v, float *slots) {
  v = warpMax(v);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = warpMax(threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : -INFINITY);
  __syncthreads();
  return v;
}

__device__ float blockSum(float v, float *slots) {
  v = warpSum(v);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = warpSum(threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : 0.0f);
  __syncthreads();
  return v;
}

__global__ void softmaxBlockVec(const float *__restrict__ in, float *__restrict__ out, int cols, bool vec) {
  __shared__ float slots[32];
  const float *x = in + (size_t)blockIdx.x * cols;
  float *y = out + (size_t)blockIdx.x * cols;
  const float4 *x4 = reinterpret_cast<const float4 *>(x);
  float4 *y4 = reinterpret_cast<float4 *>(y);
  const int n4 = vec ? cols / 4 : 0;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < n4; j += blockDim.x) {
    float4 v = x4[j];
    m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  }
  for (int c = 4 * n4 + threadIdx.x; c < cols; c += blockDim.x)
    m = fmaxf(m, x[c]);
  m = blockMax(m, slots);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n4; j += blockDim.x) {
    float4 v = x4[j];
    sum += (__expf(v.x - m) + __expf(v.y - m)) + (__expf(v.z - m) + __expf(v.w - m));
  }
  for (int c = 4 * n4 + threadIdx.x; c < cols; c += blockDim.x)
    sum += __expf(x[c] - m);
  const float inv = 1.0f / blockSum(sum, slots);
  for (int j = threadIdx.x; j < n4; j += blockDim.x) {
    float4 v = x4[j];
    y4[j] = make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv);
  }
  for (int c = 4 * n4 + threadIdx.x; c < cols; c += blockDim.x)
    y[c] = __expf(x[c] - m) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  const bool vec = cols % 4 == 0 && (reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 16 == 0;
  softmaxBlockVec<<<rows, THREADS>>>(in, out, cols, vec);
}
