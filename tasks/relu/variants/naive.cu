__global__ void reluNaive(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float *x, float *y, int n) { reluNaive<<<(n + 255) / 256, 256>>>(x, y, n); }
