// GPU baseline: the plain one-thread-per-element kernel.
__global__ void vectorAddBaseline(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  vectorAddBaseline<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
