#include "cudaperf/daemon/ParallelDraw.h"

#include <algorithm>
#include <new>
#include <sched.h>
#include <system_error>
#include <thread>
#include <vector>

namespace cudaperf::draw {

namespace {
// Below this many elements a thread's start costs more than it saves.
constexpr std::uint64_t kElementsPerThread = std::uint64_t{1} << 22;
} // namespace

void drawIntoHostInParallel(unsigned char *at, std::uint64_t count, const DrawSpec &spec, std::uint64_t key,
                            unsigned threads) {
  if (threads == 0) { // the cores this process may run on (the daemon pins itself), not every online one
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    threads = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? static_cast<unsigned>(CPU_COUNT(&allowed))
                                                                  : std::thread::hardware_concurrency();
    threads = std::max(1u, threads);
  }
  const std::uint64_t useful = (count + kElementsPerThread - 1) / kElementsPerThread;
  threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, useful));
  if (spec.kind == Kind::Offsets || threads <= 1) {
    drawIntoHost(at, count, spec, key);
    return;
  }
  const unsigned width = storedBytes(spec.type);
  auto drawRange = [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i)
      storeElement(at + i * width, spec.type, drawValue(spec, key, i));
  };
  // Range t of `threads` is [count * t / threads, count * (t + 1) / threads). A thread that cannot start (a
  // process or address-space limit) leaves its ranges to this one: never std::terminate on a joinable thread.
  std::vector<std::thread> workers;
  unsigned started = 1;
  try {
    workers.reserve(threads - 1);
    for (; started < threads; ++started)
      workers.emplace_back(drawRange, count * started / threads, count * (started + 1) / threads);
  } catch (const std::system_error &) {
  } catch (const std::bad_alloc &) {
  }
  drawRange(0, count / threads);
  drawRange(count * started / threads, count);
  for (std::thread &worker : workers)
    worker.join();
}

} // namespace cudaperf::draw
