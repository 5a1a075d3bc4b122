// expect: timeout
// Never returns to the harness: spins on the CPU.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  volatile unsigned long spins = 0;
  for (;;)
    ++spins;
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
