// Vectorised GELU: a small vector-traits template maps the scalar function
// over the lanes of a float4; the body kernel handles n / 4 groups, a tail
// kernel the remaining n % 4 (or everything when a pointer is not 16-byte
// aligned).
#include <cstdint>

__device__ __forceinline__ float gelu_scalar(float v) {
  const float u = 0.7978845608f * fmaf(0.044715f * v, v * v, v);
  return v / (1.0f + expf(-2.0f * u));
}

template <typename V>
struct Lanes;

template <>
struct Lanes<float4> {
  template <typename F>
  __device__ static float4 map(float4 a, F f) {
    return make_float4(f(a.x), f(a.y), f(a.z), f(a.w));
  }
};

struct GeluFn {
  __device__ float operator()(float v) const { return gelu_scalar(v); }
};

template <typename V>
__global__ void gelu_body(const V *__restrict__ x, V *__restrict__ y, int groups) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < groups)
    y[i] = Lanes<V>::map(x[i], GeluFn());
}

__global__ void gelu_tail(const float *__restrict__ x, float *__restrict__ y, int start, int n) {
  const int i = start + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = gelu_scalar(x[i]);
}

extern "C" void gelu(const float *x, float *y, int n) {
  const bool aligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) == 0;
  const int groups = aligned ? n / 4 : 0;
  const int threads = 256;
  if (groups > 0)
    gelu_body<float4><<<(groups + threads - 1) / threads, threads>>>(reinterpret_cast<const float4 *>(x),
                                                                     reinterpret_cast<float4 *>(y), groups);
  const int rest = n - 4 * groups;
  if (rest > 0)
    gelu_tail<<<(rest + threads - 1) / threads, threads>>>(x, y, 4 * groups, n);
}
