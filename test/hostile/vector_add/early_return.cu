// expect: wrong_answer
// Does the work only for small sizes (the ones a lazy checker would test).
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  if (n > 4096)
    return;
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
