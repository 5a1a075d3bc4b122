// A typo: multiplies x by itself.
__global__ void dotTypo(const float *x, const float *y, float *out, int n) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += x[i] * x[i];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(out, sum);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  dotTypo<<<528, 256>>>(x, y, out, n);
}
