__global__ void saxpyNaive(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[0] * x[i] + y[i];
}

extern "C" void saxpy(const float *a, const float *x, float *y, int n) {
  saxpyNaive<<<(n + 255) / 256, 256>>>(a, x, y, n);
}
