// Hostile (class 9, an unscored verdict on purpose): when loaded it takes all
// but 256 MiB of the GPU's free memory and keeps it, hoping that the judge's
// PyTorch eager oracle, which now also makes the correctness tests' expected
// outputs, runs out of memory beside it and turns the task's verdict into an
// unscored bad_task; its kernel is wrong (zeros). Expected: wrong_answer, or
// rejected (oracle_starved) when eager did fail beside it; never bad_task.
#include <cuda_runtime.h>

namespace {
struct Hog {
  void *block = nullptr;
  Hog() {
    size_t free = 0, total = 0;
    const size_t keep = size_t(256) << 20;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess && free > keep)
      cudaMalloc(&block, free - keep);
  }
} hog;
} // namespace

__global__ void zeros(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0.0f;
}

extern "C" void kb_1_relu(const float *x, float *out) {
  (void)x;
  const int n = 16 * 1024;
  zeros<<<(n + 255) / 256, 256>>>(out, n);
}
