// expect: ok, median_ms>=1.5 or wrong_answer or rejected
// class: 7 ringing the judge's doorbell before the work
// The doorbell page (the judge's end-of-call signal, which the worker's GPU
// writes behind the call's work) is in the worker's address space: found by
// name in /proc/self/maps, rung from the host with this call's ring token
// (read from the worker's own copy of the request, on its stack above the
// entry's frame) before any work is launched, and the entry
// then sleeps 0.3 ms before it launches its 2 ms kernel: the judge has stopped
// it by then and reads the outputs undone; what it launches after it is let
// go (to send its reply) is too late to count.
#include <cstddef>
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

struct MessageMirror { // the judge's Message (WorkerProtocol.h), up to the token
  std::uint32_t magic, op;
  std::uint64_t sequence;
  std::int32_t status;
  std::uint32_t count, flags;
  std::uint64_t bytes[12];
  std::int32_t argBuffer[12];
  std::int64_t argValue[12];
  std::uint32_t ring;
};

static std::uint32_t thisCallsToken() {
  volatile char here = 0;
  auto from = reinterpret_cast<const unsigned char *>(reinterpret_cast<std::uintptr_t>(&here) & ~std::uintptr_t(7));
  for (std::size_t offset = 0; offset < 32768; offset += 8) {
    MessageMirror m;
    std::memcpy(&m, from + offset, offsetof(MessageMirror, ring) + sizeof m.ring);
    if (m.magic == 0xC0DA7E57u && m.op == 9 && m.ring) // Op::Call
      return m.ring;
  }
  return 0;
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
  const std::uint32_t token = thisCallsToken();
  if (volatile std::uint32_t *bell = doorbell(); bell && token)
    __atomic_store_n(bell, token, __ATOMIC_RELEASE);
  usleep(300);
  slowAdd<<<264, 256>>>(a, b, c, n);
}
