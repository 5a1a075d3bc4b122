// Runs the GPU harness (cudaperf-run) on one candidate inside the sandbox and
// turns however it ended into a verdict: the harness's own answer when it
// gave one, otherwise timeout (wall or CPU limit), runtime_error (a signal, an
// exit from inside the candidate, output past the cap) or harness_error.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/ReferenceOutputs.h"
#include "cudaperf/daemon/Sandbox.h"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct HarnessOptions {
  std::filesystem::path runner; // cudaperf-run
  sandbox::Limits limits = defaultLimits();
  std::vector<std::pair<std::string, std::string>> environment; // e.g. CUDA_VISIBLE_DEVICES
  static sandbox::Limits defaultLimits();
};

struct HarnessJob {
  const TaskSpec *task = nullptr;
  std::string taskJson;                          // the task.json text the harness validates again
  std::vector<std::filesystem::path> candidates; // evaluated in order by one warm harness
  std::optional<std::filesystem::path> baseline;
  std::uint64_t seed = 1;
  int trials = 0; // 0: max(2, the task's distribution count)
  int warmup = 10, runs = 30;
  bool skipTiming = false;
  double minGpuShare = 0.05;

  int effectiveTrials() const;
};

// Evaluates every candidate of the job, each `repeat` times, in a warm
// harness process (the benchmark inputs and the GPU baseline are made once).
// When the process ends early (a CUDA error, a crash, a timeout), the
// evaluation it was on gets its verdict and a fresh harness takes the rest.
// One result per evaluation, in order, each with a "sandbox" object saying
// how its process ended; the wall-clock limit applies per evaluation.
std::vector<boost::json::object> runHarness(const HarnessJob &job, const ReferenceData &reference,
                                            const HarnessOptions &options, int repeat = 1);

// The verdict for an evaluation the harness did not answer.
boost::json::object verdictWithoutAnswer(const sandbox::Result &run, const sandbox::Limits &limits);

} // namespace cudaperf
