// expect: ok, median_ms>=1.5 or wrong_answer or rejected
// class: 7 ringing the judge's doorbell before the work
// The doorbell page (the judge's end-of-call signal, which the worker's GPU
// writes behind the call's work) is in the worker's address space: found by
// name in /proc/self/maps, rung from the host with this call's number (the
// last one rung plus one) before any work is launched, and the entry
// then launches its 2 ms kernel at once: the launch races the judge's stop, and
// the probe kernel the judge launched at the ring must wait for the work.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unistd.h>

__global__ void slowAdd(const float *a, const float *b, float *c, int n) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < 2000000ull);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

static volatile std::uint32_t *doorbell() {
  static volatile std::uint32_t *found = nullptr;
  if (found)
    return found;
  if (FILE *maps = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    unsigned long start = 0;
    while (std::fgets(line, sizeof line, maps))
      if (std::strstr(line, "cudaperf-doorbell") && std::sscanf(line, "%lx-", &start) == 1)
        found = reinterpret_cast<volatile std::uint32_t *>(start);
    std::fclose(maps);
  }
  return found;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  if (volatile std::uint32_t *bell = doorbell())
    __atomic_store_n(bell, *bell + 1, __ATOMIC_RELEASE);
  slowAdd<<<264, 256>>>(a, b, c, n);
}
