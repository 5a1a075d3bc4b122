// Plausible but wrong: the guard drops the last element.
__global__ void addOffByOne(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  addOffByOne<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
