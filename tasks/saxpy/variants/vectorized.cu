__global__ void saxpyVec(const float *__restrict__ a, const float4 *__restrict__ x, float4 *__restrict__ y, int n4) {
  const float s = a[0];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 u = x[i], v = y[i];
    y[i] = make_float4(fmaf(s, u.x, v.x), fmaf(s, u.y, v.y), fmaf(s, u.z, v.z), fmaf(s, u.w, v.w));
  }
}

__global__ void saxpyTail(const float *a, const float *x, float *y, int start, int n) {
  int i = start + threadIdx.x;
  if (i < n)
    y[i] = fmaf(a[0], x[i], y[i]);
}

extern "C" void saxpy(const float *a, const float *x, float *y, int n) {
  int n4 = n / 4;
  if (n4 > 0)
    saxpyVec<<<(n4 + 255) / 256, 256>>>(a, reinterpret_cast<const float4 *>(x), reinterpret_cast<float4 *>(y), n4);
  if (n % 4)
    saxpyTail<<<1, 4>>>(a, x, y, n4 * 4, n);
}
