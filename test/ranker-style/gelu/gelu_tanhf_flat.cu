// gelu: one element per thread, 128-thread blocks, tanhf from the math
// library (accurate, several instructions).
__device__ float gelu_tanh(float v) {
  const float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void gelu_flat(const float *x, float *y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = gelu_tanh(x[i]);
}

extern "C" void gelu(const float *x, float *y, int n) {
  const int block = 128;
  gelu_flat<<<(n + block - 1) / block, block>>>(x, y, n);
}
