#include "KernelTrace.h"

#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

namespace cudaperf {

namespace {

constexpr std::size_t kBufferBytes = 1 << 20;

struct Recorded {
  std::mutex mutex;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals; // start, end in ns
  std::string firstKernel;
};

Recorded &recorded() {
  static Recorded instance;
  return instance;
}

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxRecords) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t validSize) {
  CUpti_Activity *record = nullptr;
  Recorded &into = recorded();
  std::lock_guard lock(into.mutex);
  while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    const auto *kernel = reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
    into.intervals.emplace_back(kernel->start, kernel->end);
    if (into.firstKernel.empty() && kernel->name)
      into.firstKernel = kernel->name;
  }
  std::free(buffer);
}

std::string describe(CUptiResult status) {
  const char *text = nullptr;
  cuptiGetResultString(status, &text);
  return text ? text : "CUPTI error " + std::to_string(status);
}

} // namespace

KernelTrace::KernelTrace() {
  const CUptiResult status = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
  available_ = status == CUPTI_SUCCESS;
  if (!available_)
    error_ = describe(status);
}

void KernelTrace::start() {
  if (!available_)
    return;
  {
    std::lock_guard lock(recorded().mutex);
    recorded().intervals.clear();
    recorded().firstKernel.clear();
  }
  if (const CUptiResult status = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); status != CUPTI_SUCCESS) {
    available_ = false;
    error_ = describe(status);
  }
}

KernelActivity KernelTrace::stop() {
  KernelActivity activity;
  if (!available_)
    return activity;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  Recorded &from = recorded();
  std::lock_guard lock(from.mutex);
  auto intervals = from.intervals;
  std::sort(intervals.begin(), intervals.end());
  std::uint64_t busyNs = 0, coveredUntil = 0;
  for (const auto &[start, end] : intervals) {
    activity.kernelMs += (end - start) / 1e6;
    const std::uint64_t from = std::max(start, coveredUntil);
    if (end > from)
      busyNs += end - from;
    coveredUntil = std::max(coveredUntil, end);
  }
  activity.kernels = intervals.size();
  activity.busyMs = busyNs / 1e6;
  activity.firstKernel = from.firstKernel;
  return activity;
}

} // namespace cudaperf
