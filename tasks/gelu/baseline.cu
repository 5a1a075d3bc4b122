// Plain CUDA: one element per thread, 128-thread blocks.
__global__ void geluKernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

extern "C" void gelu(const float *x, float *y, int n) { geluKernel<<<(n + 127) / 128, 128>>>(x, y, n); }
