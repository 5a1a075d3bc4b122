__global__ void addGridStride(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  addGridStride<<<264, 512>>>(a, b, c, n);
}
