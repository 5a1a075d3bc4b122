// The trusted half of an evaluation: the task's C reference run on the
// correctness inputs (and timed on the benchmark inputs for the CPU
// baseline), outside the candidate's process, cached on disk per task,
// reference library, seed and trial count. The harness gets the expected
// outputs through its stdin and never loads the reference, so a candidate
// cannot call it, and the cache is hidden from the candidate's sandbox.
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
  double cpuBaselineMs = -1; // the reference on the benchmark inputs (median of 3); -1: not measured
  bool fromCache = false;
  double seconds = 0; // time spent computing (0 when cached)
};

class ReferenceOutputs {
public:
  // An empty cache directory disables the cache.
  explicit ReferenceOutputs(std::filesystem::path cacheDirectory);

  // Throws TaskError when the reference cannot be loaded or when an output
  // is degenerate (the same value everywhere: such a task cannot tell a
  // wrong candidate from a right one).
  ReferenceData compute(const TaskSpec &task, const std::string &taskJson,
                        const std::filesystem::path &referenceLibrary, std::uint64_t seed, std::size_t trials,
                        bool measureCpuBaseline);

private:
  std::mutex &keyMutex(const std::string &key);
  std::filesystem::path cacheDirectory_;
  std::mutex mutex_;
  // One computation per key at a time: concurrent evaluations of a task wait
  // for the first instead of running the (seconds-long) CPU baseline again.
  std::map<std::string, std::unique_ptr<std::mutex>> keyMutexes_;
  std::map<std::string, ReferenceData> memory_; // recent results, also without a cache directory
};

// Names the output that is degenerate over `tests` (each: one HostBuffer per
// output argument), or returns an empty string.
std::string degenerateOutput(const TaskSpec &task, const std::vector<std::vector<HostBuffer>> &tests);

} // namespace cudaperf
