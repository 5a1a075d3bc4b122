// The judge's answer for one candidate, read once into typed stage results:
// the verdict, the checked calls (correctness) and the timed calls (timing).
// The answer's JSON stays the wire format between judge and daemon and what
// the daemon answers and stores; the reward and the feedback read these.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>

namespace cudaperf {

struct CorrectnessStage {
  int passed = 0, total = 0;
  double seconds = 0;
  // The first failing test: its sizes (as the task names them), why, and the
  // first mismatching elements where the outputs were compared.
  struct Failure {
    boost::json::value sizes;
    std::string reason;
    std::optional<boost::json::value> firstMismatches;
  };
  std::optional<Failure> firstFailure;
};

struct TimingStage {
  double medianMs = 0, cv = 0, seconds = 0;
  std::optional<double> speedupCpu, speedupGpu; // against the C reference, the GPU baseline
};

struct JudgeVerdict {
  std::string status; // the judge's verdict (ok, wrong_answer, runtime_error, timeout, rejected, ...)
  std::string error;  // why, for a verdict other than ok or wrong_answer
  std::optional<CorrectnessStage> correctness;
  std::optional<TimingStage> timing;
  double workerStartSeconds = 0;        // the worker's start, waited for
  std::map<std::string, double> phases; // the judge's own phases (judge_startup_seconds, ...)

  // Lenient: a field absent or of another type is left at its default (the
  // judge is ours; a missing status is a harness_error).
  static JudgeVerdict fromAnswer(const boost::json::object &answer);
};

} // namespace cudaperf
