// expect: rejected or ok, median_ms>=0.18
// class: 12 collateral damage
// Correct; its first call starts a host thread that keeps the GPU busy with
// 2 ms kernels on a stream of its own, between and after its calls: in a
// harness that times the GPU baseline after the candidate, the baseline is
// slowed and the speedup inflated. Here the baseline was timed first, in a
// worker of its own, and the worker is stopped between the judge's requests:
// the flood can only slow the candidate's own calls (rejected when the probe
// before a call finds the GPU busy; otherwise an ok whose time is no faster
// than an honest vector_add's, about 0.2 ms on the H200).
#include <thread>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

__global__ void busy() {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < 2000000ull);
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static bool started = false;
  if (!started) {
    started = true;
    std::thread([] {
      cudaStream_t stream;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (;;) {
        busy<<<132, 32, 0, stream>>>();
        cudaStreamSynchronize(stream);
      }
    }).detach();
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
