// expect: ok, median_ms>=15 or wrong_answer or rejected
// class: 7 patching the timer
// Rewrites cudaDeviceSynchronize, cudaEventSynchronize and
// cudaEventElapsedTime in the shared runtime to return at once, then
// launches 20 ms of kernel: whoever times with the runtime sees a call that
// is over before its kernel is. The judge's probe kernel after "returned"
// waits for the GPU (charged), or the outputs are not there yet (wrong).
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

__global__ void slowSaxpy(const float *a, float *y, const float *x, int n) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > 20000000ull)
      break;
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a[0] * x[i] + y[i];
}

static cudaError_t instantly() { return cudaSuccess; }
static cudaError_t instantlyFor(cudaEvent_t) { return cudaSuccess; }
static cudaError_t tinyElapsed(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.01f;
  return cudaSuccess;
}

static void redirect(void *function, void *target) {
  const long page = sysconf(_SC_PAGESIZE);
  auto *at = static_cast<unsigned char *>(function);
  auto *first = reinterpret_cast<unsigned char *>(reinterpret_cast<uintptr_t>(at) & ~(page - 1));
  mprotect(first, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC);
  unsigned char code[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
  std::memcpy(code + 2, &target, 8);
  std::memcpy(at, code, sizeof code);
}

extern "C" void saxpy(const float *a, const float *x, float *y, int n) {
  static bool patched = false;
  if (!patched) {
    patched = true;
    redirect(reinterpret_cast<void *>(&cudaDeviceSynchronize), reinterpret_cast<void *>(&instantly));
    redirect(reinterpret_cast<void *>(&cudaEventSynchronize), reinterpret_cast<void *>(&instantlyFor));
    redirect(reinterpret_cast<void *>(&cudaEventElapsedTime), reinterpret_cast<void *>(&tinyElapsed));
  }
  slowSaxpy<<<1024, 256>>>(a, y, x, n);
}
