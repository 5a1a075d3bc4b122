// expect: wrong_answer
// Writes zeros when the inputs are tiny (an absolute tolerance of 1e-5 would
// accept that); computes honestly otherwise. The tolerance scales with the
// RMS of the expected output, and one of the task's input distributions is tiny.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = fabsf(a[0]) < 1e-5f ? 0.0f : a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
