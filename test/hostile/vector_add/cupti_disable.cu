// expect: rejected
// class: 6 switching the kernel tracer off
// Switches CUPTI's kernel records off, then computes on the host behind a
// token kernel: a harness that trusts its tracer skips its GPU checks when
// the tracer reports nothing. CUPTI's symbols are forbidden at compile time.
#include <cupti.h>
#include <vector>

__global__ void token() {}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL);
  std::vector<float> x(n), y(n);
  cudaMemcpy(x.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(y.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    x[i] += y[i];
  token<<<1, 1>>>();
  cudaMemcpy(c, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}
