// Plain CUDA: one element per thread, 128-thread blocks.
__global__ void reluKernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void relu(const float *x, float *y, int n) { reluKernel<<<(n + 127) / 128, 128>>>(x, y, n); }
