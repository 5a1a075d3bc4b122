// tanh(u) = 1 - 2 / (exp(2u) + 1): one exponential per element.
__device__ float geluExp(float v) {
  const float u = 0.7978845608f * fmaf(0.044715f * v, v * v, v);
  const float t = 1.0f - 2.0f / (expf(2.0f * u) + 1.0f);
  return 0.5f * v * (1.0f + t);
}

__global__ void geluVec(const float4 *__restrict__ x, float4 *__restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(geluExp(v.x), geluExp(v.y), geluExp(v.z), geluExp(v.w));
  }
}

__global__ void geluTail(const float *x, float *y, int start, int n) {
  int i = start + threadIdx.x;
  if (i < n)
    y[i] = geluExp(x[i]);
}

extern "C" void gelu(const float *x, float *y, int n) {
  int n4 = n / 4;
  if (n4 > 0)
    geluVec<<<(n4 + 255) / 256, 256>>>(reinterpret_cast<const float4 *>(x), reinterpret_cast<float4 *>(y), n4);
  if (n % 4)
    geluTail<<<1, 4>>>(x, y, n4 * 4, n);
}
