// Plain CUDA (the GPU baseline and the timed calls' oracle): the bitonic
// network with the steps of stride below 1024 merged in shared memory.
#include <cfloat>

constexpr int kChunk = 1024;

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

// Steps j = first, first / 2, ..., 1 of stage k on a chunk of `chunk` elements.
__global__ void sharedSteps(float *d, int first, int k, int chunk) {
  __shared__ float s[kChunk];
  const unsigned base = blockIdx.x * chunk;
  for (int t = threadIdx.x; t < chunk; t += blockDim.x)
    s[t] = d[base + t];
  __syncthreads();
  for (int j = first; j > 0; j >>= 1) {
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
  for (int k = 2; k <= padded; k <<= 1) {
    int j = k / 2;
    for (; j >= chunk; j >>= 1)
      globalStep<<<blocks, threads>>>(d, j, k);
    if (j > 0) {
      const int sharedThreads = chunk / 2 > 0 ? chunk / 2 : 1;
      sharedSteps<<<padded / chunk, sharedThreads>>>(d, j, k, chunk);
    }
  }
  cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(d);
}
