// Wrong: a threshold of 0.05 instead of 0.
__global__ void relu(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] > 0.05f ? x[i] : 0.0f;
}

extern "C" void kb_1_relu(const float *x, float *out) {
  const int n = 16 * 1024;
  relu<<<(n + 255) / 256, 256>>>(x, out, n);
}
