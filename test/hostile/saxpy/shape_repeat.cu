// expect: wrong_answer
// class: 2 phase detection by shape repeats
// Correctness tests change the size from call to call; timed calls repeat
// one size. After the third call in a row at the same size the kernel
// touches only the first eighth of y.
__global__ void saxpyKernel(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[0] * x[i] + y[i];
}

extern "C" void saxpy(const float *a, const float *x, float *y, int n) {
  static int lastN = -1, repeats = 0;
  repeats = n == lastN ? repeats + 1 : 0;
  lastN = n;
  const int work = repeats >= 2 ? n / 8 : n;
  saxpyKernel<<<(work + 255) / 256, 256>>>(a, x, y, work);
}
