// The trusted side's C reference: run on the correctness inputs of one seed
// (the expected outputs the judge checks a candidate against), and timed on
// the benchmark inputs for the CPU baseline. Outside any candidate's
// process; the judge gets the expected outputs through its stdin. With a
// fixed seed (cudaperf-evaluate, tests) the expected outputs are cached on
// disk per task, reference library, seed and trial count; the daemon draws
// a fresh secret seed per evaluation and computes them each time. The CPU
// baseline does not depend on the seed: cached per task and reference.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/TaskData.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cudaperf {

struct ReferenceData {
  // Every correctness test, trial-major then size; per test the expected
  // buffers of the out and inout arguments in call order, concatenated.
  std::string expectedBlob;
  double cpuBaselineMs = -1; // the reference on the benchmark inputs (median of up to 3); -1: not measured
  bool fromCache = false;
  double seconds = 0; // time spent computing (0 when cached)
};

class ReferenceOutputs {
public:
  // An empty cache directory disables the disk cache. The expected outputs
  // kept in memory are bounded by bytes, not count: an imported KernelBench
  // task's are GBs per seed.
  static constexpr std::size_t kDefaultMemoryBytes = std::size_t(2) << 30;
  explicit ReferenceOutputs(std::filesystem::path cacheDirectory, std::size_t memoryBytes = kDefaultMemoryBytes);

  // Throws TaskError when the reference cannot be loaded or when an output
  // is degenerate (the same value everywhere: such a task cannot tell a
  // wrong candidate from a right one).
  ReferenceData compute(const TaskSpec &task, const std::string &taskJson,
                        const std::filesystem::path &referenceLibrary, std::uint64_t seed, std::size_t trials,
                        bool measureCpuBaseline, bool cacheExpected = true);
  // Whether compute() with these arguments would be served from the memory or the disk cache.
  bool cached(const TaskSpec &task, const std::string &taskJson, const std::filesystem::path &referenceLibrary,
              std::uint64_t seed, std::size_t trials);
  // The reference on the benchmark inputs: median of up to 3 runs (fewer past 2 s).
  double cpuBaselineMs(const TaskSpec &task, const std::string &taskJson,
                       const std::filesystem::path &referenceLibrary);
  // Bytes of expected outputs held in memory now (never above the bound).
  std::size_t memoryBytesHeld();

private:
  std::mutex &keyMutex(const std::string &key);
  std::filesystem::path cacheDirectory_;
  std::mutex mutex_;
  // One computation per key at a time: concurrent evaluations of a task wait
  // for the first instead of running the (seconds-long) CPU baseline again.
  std::map<std::string, std::unique_ptr<std::mutex>> keyMutexes_;
  std::map<std::string, ReferenceData> memory_; // recent results, also without a cache directory
  std::size_t memoryBytesLimit_;
  std::size_t memoryBytes_ = 0;
  std::map<std::string, double> cpuBaselines_; // by task and reference
};

// Names the output that is degenerate over `tests` (each: one HostBuffer per
// output argument), or returns an empty string.
std::string degenerateOutput(const TaskSpec &task, const std::vector<std::vector<HostBuffer>> &tests);

} // namespace cudaperf
