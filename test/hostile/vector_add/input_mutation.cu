// expect: wrong_answer
// Correct output, but uses an input as scratch space: the inputs are
// compared with what the harness passed in.
__global__ void addAndClobber(float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = a[i] + b[i];
    c[i] = a[i];
  }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  addAndClobber<<<(n + 255) / 256, 256>>>(const_cast<float *>(a), b, c, n);
}
