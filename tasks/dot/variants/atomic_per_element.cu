__global__ void dotAtomic(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i] * y[i]);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dotAtomic<<<(n + 255) / 256, 256>>>(x, y, out, n);
}
