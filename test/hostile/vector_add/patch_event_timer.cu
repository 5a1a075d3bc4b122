// expect: ok, median_ms>=15
// class: 7 patching the timer
// Correct, but spins for 20 ms in its kernel, and rewrites the first bytes of
// cudaEventElapsedTime in the shared CUDA runtime so that every timing done
// with events in this process reports 0.02 ms. The judge's own clock must
// still charge the 20 ms.
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

__global__ void slowAdd(const float *a, const float *b, float *c, int n) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > 20000000ull)
      break;
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

static cudaError_t fastElapsed(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.02f;
  return cudaSuccess;
}

// movabs rax, target; jmp rax
static void redirect(void *function, void *target) {
  const long page = sysconf(_SC_PAGESIZE);
  auto *at = static_cast<unsigned char *>(function);
  auto *first = reinterpret_cast<unsigned char *>(reinterpret_cast<uintptr_t>(at) & ~(page - 1));
  mprotect(first, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC);
  unsigned char code[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
  std::memcpy(code + 2, &target, 8);
  std::memcpy(at, code, sizeof code);
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static bool patched = false;
  if (!patched) {
    patched = true;
    redirect(reinterpret_cast<void *>(&cudaEventElapsedTime), reinterpret_cast<void *>(&fastElapsed));
  }
  slowAdd<<<1024, 256>>>(a, b, c, n);
}
