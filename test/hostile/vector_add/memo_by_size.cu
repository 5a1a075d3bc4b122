// expect: wrong_answer
// class: 3 memoisation
// Keeps the last output per size in a buffer of its own and copies it back
// when the size repeats: right if every timed call gets the same inputs.
#include <cstddef>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static float *kept = nullptr;
  static int keptN = -1;
  if (kept && keptN == n) {
    cudaMemcpy(c, kept, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice);
    return;
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  if (kept)
    cudaFree(kept);
  cudaMalloc(&kept, static_cast<size_t>(n) * sizeof(float));
  cudaMemcpy(kept, c, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice);
  keptN = n;
}
