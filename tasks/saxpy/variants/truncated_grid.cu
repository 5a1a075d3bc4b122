// n / 256 blocks: the last partial block is never launched.
__global__ void saxpyTrunc(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[0] * x[i] + y[i];
}

extern "C" void saxpy(const float *a, const float *x, float *y, int n) {
  if (n >= 256)
    saxpyTrunc<<<n / 256, 256>>>(a, x, y, n);
}
