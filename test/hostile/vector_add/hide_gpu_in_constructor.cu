// expect: runtime_error or timeout
// class: 9 an unscored verdict on purpose
// As it is loaded, hides the GPU (CUDA_VISIBLE_DEVICES emptied, the context
// reset): a harness that looks for a device after loading the candidate
// reports no_gpu, which costs the candidate nothing. The worker's context
// and buffers were made before the candidate existed; what breaks is its own.
#include <cstdlib>

__attribute__((constructor)) static void hide() {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  cudaDeviceReset();
}

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
