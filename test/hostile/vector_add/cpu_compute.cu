// expect: rejected
// Computes on the CPU (copies in, adds, copies back) and launches no kernel:
// right answers, but CUPTI records no kernel of its own.
#include <vector>

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  std::vector<float> x(n), y(n);
  cudaMemcpy(x.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(y.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    x[i] += y[i];
  cudaMemcpy(c, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}
