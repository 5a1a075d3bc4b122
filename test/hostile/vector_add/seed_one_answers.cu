// expect: wrong_answer
// class: 10 answers hard-coded for the default seed
// With the harness's default seed 1 the inputs of every test are known in
// advance: at n = 1 this writes the answer of seed 1's first test without
// reading a, b (computed offline from the public generator), and computes
// honestly elsewhere. A fresh secret seed per evaluation makes it wrong.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  if (n == 1) {
    const float known = -1.025829792022705f; // seed 1, trial 0, n = 1
    cudaMemcpy(c, &known, sizeof known, cudaMemcpyHostToDevice);
    return;
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
