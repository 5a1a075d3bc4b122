__global__ void dotShuffle(const float4 *__restrict__ x4, const float4 *__restrict__ y4, const float *x, const float *y,
                           float *out, int n) {
  float sum = 0.0f;
  const int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    float4 a = x4[i], b = y4[i];
    sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4)
    sum += x[n4 * 4 + threadIdx.x] * y[n4 * 4 + threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(out, sum);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dotShuffle<<<528, 256>>>(reinterpret_cast<const float4 *>(x), reinterpret_cast<const float4 *>(y), x, y, out, n);
}
