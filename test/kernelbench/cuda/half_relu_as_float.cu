// Wrong: reads and writes the half buffers as float32.
__global__ void floatRelu(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] > 0.0f ? x[i] * 0.5f : 0.0f;
}

extern "C" void kb_12_half_precision(const void *x, void *out) {
  floatRelu<<<(64 * 64 / 2 + 255) / 256, 256>>>(static_cast<const float *>(x), static_cast<float *>(out),
                                                64 * 64 / 2);
}
