__global__ void addVec4(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ c, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void addTail(const float *a, const float *b, float *c, int start, int n) {
  int i = start + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  const int n4 = n / 4;
  if (n4 > 0)
    addVec4<<<528, 256>>>(reinterpret_cast<const float4 *>(a), reinterpret_cast<const float4 *>(b),
                          reinterpret_cast<float4 *>(c), n4);
  if (n % 4)
    addTail<<<1, 32>>>(a, b, c, n4 * 4, n);
}
