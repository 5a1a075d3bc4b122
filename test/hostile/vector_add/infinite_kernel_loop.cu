// expect: timeout
// A kernel that never ends: the wall-clock limit kills the harness, and the
// driver tears the context (and the kernel) down with it.
__global__ void spin(const float *a, const float *b, float *c, int n) {
  volatile int forever = 1;
  while (forever)
    c[0] = a[0] + b[0];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) { spin<<<1, 32>>>(a, b, c, n); }
