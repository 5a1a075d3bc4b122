// Plain CUDA: odd-even transposition sort would take n launches; the
// baseline is the plain global-memory bitonic network, 128-thread blocks.
#include <cfloat>

__global__ void padWithInfinity(float *d, int n, int padded) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n && i < padded)
    d[i] = FLT_MAX;
}

__global__ void compareExchange(float *d, int j, int k) {
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
  int threads = padded < 128 ? padded : 128, blocks = padded / threads;
  padWithInfinity<<<blocks, threads>>>(d, n, padded);
  for (int k = 2; k <= padded; k <<= 1)
    for (int j = k / 2; j > 0; j >>= 1)
      compareExchange<<<blocks, threads>>>(d, j, k);
  cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(d);
}
