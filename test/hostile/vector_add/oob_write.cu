// expect: wrong_answer
// Correct sums, but writes 64 elements past the end of the output: the
// canary region after the buffer catches it.
__global__ void addPastTheEnd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
  else if (i < n + 64)
    c[i] = 0.0f;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  addPastTheEnd<<<(n + 64 + 255) / 256, 256>>>(a, b, c, n);
}
