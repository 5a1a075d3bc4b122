// expect: wrong_answer
// class: 1 benchmark-shape shortcut
// Full work at every size a correctness check uses (all below 100000
// elements), half of it at the timed size: a harness that never checks the
// timed calls' outputs pays for half a kernel.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  const int work = n > 100000 ? n / 2 : n;
  add<<<(work + 255) / 256, 256>>>(a, b, c, work);
}
