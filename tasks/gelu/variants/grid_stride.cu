__device__ float geluOne(float v) {
  const float inner = 0.7978845608f * fmaf(0.044715f * v, v * v, v);
  return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void geluStride(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = geluOne(x[i]);
}

extern "C" void gelu(const float *x, float *y, int n) { geluStride<<<1056, 256>>>(x, y, n); }
