// expect: rejected
// Computes on the CPU and launches an empty kernel for show: the kernel
// count is not zero, but the GPU-time share of the call is.
#include <vector>

__global__ void token() {}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  std::vector<float> x(n), y(n);
  cudaMemcpy(x.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(y.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    x[i] += y[i];
  token<<<1, 1>>>();
  cudaMemcpy(c, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}
