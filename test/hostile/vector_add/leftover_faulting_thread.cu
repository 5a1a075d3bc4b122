// expect: ok or runtime_error
// class: 12 collateral damage
// Correct; its first call leaves a host thread behind that wakes 300 ms
// later and launches a kernel writing through a wild pointer. In a warm
// harness that outlives the candidate, that fault fails whatever candidate
// runs next. (gpu-test evaluates a clean candidate right after it.)
#include <thread>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

__global__ void wild(float *p) { p[threadIdx.x] = 1.0f; }

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static bool started = false;
  if (!started) {
    started = true;
    std::thread([] {
      usleep(300 * 1000);
      wild<<<1, 32>>>(reinterpret_cast<float *>(0x10));
      cudaDeviceSynchronize();
    }).detach();
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
