// Sorts each 2048-element chunk in shared memory and stops: the chunks are
// never merged, so only inputs of at most one chunk come out sorted.
#include <cfloat>

constexpr int kChunk = 2048;

__global__ void pad(float *d, int n, int padded) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n && i < padded)
    d[i] = FLT_MAX;
}

__global__ void sortChunks(float *d, int chunk) {
  __shared__ float s[kChunk];
  const unsigned base = blockIdx.x * chunk;
  for (int t = threadIdx.x; t < chunk; t += blockDim.x)
    s[t] = d[base + t];
  __syncthreads();
  for (int k = 2; k <= chunk; k <<= 1)
    for (int j = k / 2; j > 0; j >>= 1) {
      for (int p = threadIdx.x; p < chunk / 2; p += blockDim.x) {
        int i = 2 * j * (p / j) + p % j, l = i + j;
        bool up = (i & k) == 0;
        float a = s[i], b = s[l];
        if ((a > b) == up) {
          s[i] = b;
          s[l] = a;
        }
      }
      __syncthreads();
    }
  for (int t = threadIdx.x; t < chunk; t += blockDim.x)
    d[base + t] = s[t];
}

extern "C" void bitonic_sort(const float *x, float *out, int n) {
  int padded = 1;
  while (padded < n)
    padded <<= 1;
  float *d;
  cudaMalloc(&d, padded * sizeof(float));
  cudaMemcpyAsync(d, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
  int threads = padded < 256 ? padded : 256;
  pad<<<padded / threads, threads>>>(d, n, padded);
  const int chunk = padded < kChunk ? padded : kChunk;
  sortChunks<<<padded / chunk, chunk / 2 > 0 ? chunk / 2 : 1>>>(d, chunk);
  cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(d);
}
