// Vector addition three ways: coalesced, strided (a common LLM mistake) and a
// grid-stride loop with float4 loads.
#include <cuda_runtime.h>

__global__ void addCoalesced(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Each thread handles a contiguous chunk: neighbouring lanes are `chunk` apart.
__global__ void addChunked(const float *a, const float *b, float *c, int n, int chunk) {
  int start = (blockIdx.x * blockDim.x + threadIdx.x) * chunk;
  for (int k = 0; k < chunk; ++k) {
    int i = start + k;
    if (i < n) c[i] = a[i] + b[i];
  }
}

__global__ void addVectorized(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ c,
                              int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

int main() {
  const int n = 1 << 24;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  addCoalesced<<<(n + 255) / 256, 256>>>(a, b, c, n);
  addChunked<<<(n / 16 + 255) / 256, 256>>>(a, b, c, n, 16);
  addVectorized<<<1024, 256>>>((const float4 *)a, (const float4 *)b, (float4 *)c, n / 4);
  cudaDeviceSynchronize();
  return 0;
}
