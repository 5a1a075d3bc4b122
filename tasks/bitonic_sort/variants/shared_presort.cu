// 2048-element chunks are first sorted completely in shared memory (stages
// k <= 2048 in one kernel, alternating directions); the remaining stages use
// global steps for strides >= 2048 and one shared-memory kernel for the rest.
#include <cfloat>

constexpr int kChunk = 2048;

__global__ void pad(float *d, int n, int padded) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n && i < padded)
    d[i] = FLT_MAX;
}

__global__ void globalStep(float *d, int j, int k) {
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

// Stages k in [kFirst, kLast], each with steps j from min(k / 2, jFirst) down to 1.
__global__ void sharedStages(float *d, int kFirst, int kLast, int jFirst, int chunk) {
  __shared__ float s[kChunk];
  const unsigned base = blockIdx.x * chunk;
  for (int t = threadIdx.x; t < chunk; t += blockDim.x)
    s[t] = d[base + t];
  __syncthreads();
  for (int k = kFirst; k <= kLast; k <<= 1)
    for (int j = min(k / 2, jFirst); j > 0; j >>= 1) {
      for (int p = threadIdx.x; p < chunk / 2; p += blockDim.x) {
        int i = 2 * j * (p / j) + p % j, l = i + j;
        bool up = ((base + i) & k) == 0;
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
  int threads = padded < 256 ? padded : 256, blocks = padded / threads;
  pad<<<blocks, threads>>>(d, n, padded);
  const int chunk = padded < kChunk ? padded : kChunk;
  const int chunkThreads = chunk / 2 > 0 ? chunk / 2 : 1;
  sharedStages<<<padded / chunk, chunkThreads>>>(d, 2, chunk, chunk / 2, chunk);
  for (int k = 2 * chunk; k <= padded; k <<= 1) {
    int j = k / 2;
    for (; j >= chunk; j >>= 1)
      globalStep<<<blocks, threads>>>(d, j, k);
    sharedStages<<<padded / chunk, chunkThreads>>>(d, k, k, j, chunk);
  }
  cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(d);
}
