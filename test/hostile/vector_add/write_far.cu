// expect: runtime_error or wrong_answer
// class: 11 writes beyond the canary band
// Correct sums, then a write 4 MiB past the end of c: far beyond a 4 KiB
// canary band, into memory a harness never compares.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
  if (i == 0)
    c[n + (1 << 20)] = 1.0f;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
