// expect: ok or runtime_error or rejected
// class: 12 collateral damage
// Correct, but its first call takes all of the GPU's free memory in 1 GiB
// pieces (and what is left in 64 MiB ones) and never gives it back: in a
// harness that outlives the candidate, or a judge whose own allocations come
// after it, the next candidate (or the judge's probe buffer for the next
// worker) finds no memory. The worker's memory goes with the worker; the
// clean candidate gpu-test evaluates right after it must be unaffected.
#include <cstddef>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static void takeEverything() {
  for (std::size_t piece : {std::size_t(1) << 30, std::size_t(64) << 20}) {
    void *held = nullptr;
    while (cudaMalloc(&held, piece) == cudaSuccess)
      ;
  }
  cudaGetLastError(); // the last, failed allocation's error is not sticky; clear it anyway
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static bool taken = false;
  if (!taken) {
    takeEverything();
    taken = true;
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
