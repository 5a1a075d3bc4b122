// expect: wrong_answer
// class: 2 phase detection by call count
// Honest for the first dozen calls (the correctness tests come first), then
// a quarter of the work: the timed calls of a harness that checks only the
// first calls would be four times cheaper.
__global__ void reluKernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] > 0 ? x[i] : 0;
}

extern "C" void relu(const float *x, float *y, int n) {
  static int calls = 0;
  const int work = ++calls > 12 ? n / 4 : n;
  reluKernel<<<(work + 255) / 256, 256>>>(x, y, work);
}
