// The bitonic network on a copy padded to a power of two (padding sorts
// last), one kernel launch per compare-exchange step: log2(n)^2 / 2 passes
// over global memory.
#include <cfloat>

__global__ void pad(float *d, int n, int padded) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n && i < padded)
    d[i] = FLT_MAX;
}

__global__ void step(float *d, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, l = i ^ j;
  if (l > i) {
    bool up = (i & k) == 0;
    float a = d[i], b = d[l];
    if ((a > b) == up) {
      d[i] = b;
      d[l] = a;
    }
  }
}

extern "C" void bitonic_sort(const float *x, float *out, int n) {
  int padded = 1;
  while (padded < n)
    padded <<= 1;
  float *d;
  cudaMalloc(&d, padded * sizeof(float));
  cudaMemcpyAsync(d, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
  int threads = padded < 256 ? padded : 256, blocks = padded / threads;
  pad<<<blocks, threads>>>(d, n, padded);
  for (int k = 2; k <= padded; k <<= 1)
    for (int j = k / 2; j > 0; j >>= 1)
      step<<<blocks, threads>>>(d, j, k);
  cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(d);
}
