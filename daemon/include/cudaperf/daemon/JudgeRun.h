// Runs the judge (cudaperf-judge) over the candidates of one task and turns
// its answers, or however it ended, into verdicts. The judge is trusted and
// runs unsandboxed (it needs root to put its workers into namespaces); each
// candidate runs in a sandboxed worker of its own that the judge starts.
// Every candidate carries its own secret seed and the expected outputs of
// its correctness tests, computed by the trusted side for that seed.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/ReferenceOutputs.h"
#include "cudaperf/daemon/Sandbox.h"

#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct JudgeOptions {
  std::filesystem::path judge;          // cudaperf-judge
  std::filesystem::path worker;         // cudaperf-worker; empty: beside the judge
  double wallSeconds = 120;             // per evaluation: correctness, the timed calls, the worker's start
  std::vector<std::string> hiddenPaths; // from the workers (task folders, caches)
  std::vector<std::pair<std::string, std::string>> environment; // e.g. CUDA_VISIBLE_DEVICES
  bool cuda = true;                                             // false: host memory tasks only, no GPU (tests)
  bool requireIsolation = true; // false only for development: workers may run unisolated
  std::vector<int> cpus;        // the judge's (and its workers') CPUs; empty: the caller's
  // A task's GPU baseline timing is reused for this long within one judge
  // (across its batches and task switches), then timed again.
  double baselineMaxAgeSeconds = 300;
  // Spare workers still starting while another's calls are timed: stopped
  // meanwhile (true), or waited for before the timed calls.
  bool pauseStartingWorkers = true;
};

struct JudgeCandidate {
  std::filesystem::path library;
  std::uint64_t seed = 1;                         // secret, fresh per evaluation in the daemon
  std::shared_ptr<const ReferenceData> reference; // expected outputs for that seed, CPU baseline
  // Nonzero: `reference` holds the expected outputs of this seed instead,
  // which only the GPU baseline's own check reads; the candidate's
  // correctness tests (inputs of `seed`) are checked against the baseline,
  // run by the judge (correctnessFromBaseline).
  std::uint64_t expectedSeed = 0;
  // With expectedSeed, for a long-lived judge (JudgeSession): those expected
  // outputs made only if the judge asks for them (needs_expected: the first
  // evaluation of the task in that judge), and `reference` then carries only
  // the CPU baseline. May throw TaskError (the task's verdict, bad_task).
  std::function<std::shared_ptr<const ReferenceData>()> expectedOnRequest;
};

struct JudgeJob {
  const TaskSpec *task = nullptr;
  std::string taskJson; // the task.json text the judge validates again
  std::vector<JudgeCandidate> candidates;
  std::optional<std::filesystem::path> baseline;  // GPU baseline: timed, and the oracle of the timed calls
  std::optional<std::filesystem::path> reference; // the C reference: the oracle when there is no baseline
  int trials = 0;                                 // 0: max(2, the task's distribution count)
  int warmup = 3, runs = 30;
  // The timed calls stop after minRuns once the median's 95 % interval is
  // within medianHalfWidth of it (docs/tasks.md); at runs in any case.
  int minRuns = 10;
  double medianHalfWidth = 0.005;
  bool skipTiming = false;
  double minGpuShare = 0.05;

  int effectiveTrials() const;
};

// An imported task judged with its PyTorch eager baseline: the module's CPU
// reference takes seconds to minutes a call at KernelBench's sizes, eager
// on the GPU milliseconds. Its candidates' correctness tests are checked
// against eager, as KernelBench checks them, and the reference checks eager
// itself, on the inputs of kBaselineCheckSeed (expected outputs computed
// once per task and cached), before eager may judge any candidate.
constexpr std::uint64_t kBaselineCheckSeed = 0xC4EC4ED5EEDull;
bool correctnessFromBaseline(const JudgeJob &job);

// One result per candidate (each `repeat` times), in order, each with the
// worker's "sandbox" account and the judge's "judge" account. When the judge
// ends early (its GPU context failed, it crashed), the candidate it was on
// gets its verdict and a fresh judge takes the rest.
std::vector<boost::json::object> runJudge(const JudgeJob &job, const JudgeOptions &options, int repeat = 1);

// The verdict for an evaluation the judge did not answer: never the candidate's.
boost::json::object verdictWithoutAnswer(const sandbox::Result &run, double wallSeconds);

// The judge's wire format, shared by runJudge and JudgeSession: its command
// line, a request (a JSON line, then the expected outputs' bytes) and the
// answer to it (a JSON line that counts only with the request's nonce).
std::vector<std::string> judgeArguments(const JudgeOptions &options);
sandbox::Limits trustedJudgeLimits();                         // the deadlines are the caller's
boost::json::object judgeAccount(const sandbox::Result &run); // how a judge process ended
std::string freshNonce();
// A request in two parts, written one after the other: the JSON line, and
// the expected outputs' bytes, not copied (GBs for a KernelBench elementwise
// problem: a concatenated copy was another such block of host memory per
// evaluation). `expected` points into the ReferenceData the caller holds,
// which must outlive the writes. JudgeSession sends both straight to the
// judge; runJudge's one-shot judge copies them once, into its stdin.
struct JudgeRequest {
  std::string header; // the JSON line, with its newline
  const std::string *expected = nullptr;
};
// With the candidate's expectedOnRequest and no `expected`: sent without
// expected outputs, which the judge asks for when it needs them.
JudgeRequest judgeRequest(const JudgeJob &job, const JudgeOptions &options, const JudgeCandidate &candidate,
                          const std::string &nonce, const ReferenceData *expected = nullptr);
std::optional<boost::json::object> judgeAnswer(const std::string &line, const std::string &nonce);

} // namespace cudaperf
