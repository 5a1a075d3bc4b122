// expect: wrong_answer
// Output caching: computes once per output pointer and size, then returns
// without work. Fresh random inputs on every trial make the stale answer wrong.
#include <map>
#include <utility>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static std::map<std::pair<float *, int>, float *> cache;

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  auto key = std::make_pair(c, n);
  auto it = cache.find(key);
  if (it != cache.end()) {
    cudaMemcpy(c, it->second, n * sizeof(float), cudaMemcpyDeviceToDevice);
    return;
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  float *saved;
  cudaMalloc(&saved, n * sizeof(float));
  cudaMemcpy(saved, c, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cache[key] = saved;
}
