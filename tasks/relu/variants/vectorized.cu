__global__ void reluVec(const float4 *__restrict__ x, float4 *__restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(fmaxf(v.x, 0.0f), fmaxf(v.y, 0.0f), fmaxf(v.z, 0.0f), fmaxf(v.w, 0.0f));
  }
}

__global__ void reluTail(const float *x, float *y, int start, int n) {
  int i = start + threadIdx.x;
  if (i < n)
    y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void relu(const float *x, float *y, int n) {
  int n4 = n / 4;
  if (n4 > 0)
    reluVec<<<(n4 + 255) / 256, 256>>>(reinterpret_cast<const float4 *>(x), reinterpret_cast<float4 *>(y), n4);
  if (n % 4)
    reluTail<<<1, 4>>>(x, y, n4 * 4, n);
}
