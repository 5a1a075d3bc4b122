// One library (a candidate, or the task's GPU baseline for its timing)
// evaluated in one fresh worker: the trusted start (preflight, calibration),
// the buffers mapped, the library loaded, every correctness test, then the
// timed calls, each on fresh inputs and each verified. The verdict is the
// judge's: the worker's word is only "returned".
#pragma once

#include "JudgeMemory.h"
#include "TaskBuffers.h"
#include "TimingRules.h"
#include "WorkerSession.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/EntryCall.h"

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::judge {

struct EvaluationRequest {
  TaskSpec task;
  std::string taskJson;
  std::string library; // the candidate (or the baseline) the worker loads
  std::uint64_t seed = 1;
  int trials = 2, warmup = 3, runs = 30;
  // A candidate's timed calls stop after minRuns once its median is pinned
  // down (TimedCallCount.h); runs is the most. minRuns >= runs: always runs.
  int minRuns = 30;
  double medianHalfWidth = 0.005;
  bool skipTiming = false;
  double cpuBaselineMs = -1;
  double minGpuShare = 0.05;
  double wallSeconds = 120;
  // Workers still starting while calls are timed: stopped meanwhile (true) or waited for.
  bool pauseStartingWorkers = true;
  std::string expected; // the correctness tests' expected outputs (ReferenceOutputs)
  // Nonzero: `expected` is of this seed, not `seed`, and only the baseline's
  // own check reads it; a candidate's correctness tests are checked against
  // the baseline run by the judge on its inputs (an imported task's PyTorch
  // eager, whose CPU reference takes seconds to minutes a call at
  // KernelBench's sizes).
  std::uint64_t expectedSeed = 0;
};

// The GPU baseline's timing, measured in a worker of its own.
struct BaselineTiming {
  std::vector<double> samples;
  double medianMs = 0, cv = 0;
  GapReference gaps;        // of its timed calls: what an honest worker's look like
  ProbeReference postProbe; // its post-call waits: what an honest call leaves for the probe
  // Each baseline worker's median gap (the full run's, then the timing-only
  // run's): the references above are the tighter of the two.
  std::vector<double> workerGapMediansMs;
  double timedAt = 0; // steady seconds: a judge reuses it for a while
};

enum class Role { Candidate, Baseline };

// One call of the trusted oracle: the inputs it was given, as drawn
// (TaskBuffers::drawInputs), so that it can be made again exactly.
struct OracleCall {
  SizeBinding sizes;
  std::uint64_t stream = 0;
  std::size_t trial = 0;
  std::uint64_t secret = 0;
};

class LibraryRun {
public:
  // `oracle`: the trusted library whose outputs the timed calls are checked
  // against (the GPU baseline; or the C reference with `oracleOnHost` in
  // device memory mode). Null: timed outputs cannot be verified (Baseline role).
  LibraryRun(const EvaluationRequest &request, TaskBuffers &buffers, WorkerSession &worker, GpuControl *gpu,
             EntryFunction oracle, bool oracleOnHost, Role role);

  boost::json::object run();
  // Whether the library was loaded: from then on every failure is its own.
  bool loaded() const { return loaded_; }
  // Faults before loading are the machine's, not the candidate's.
  bool retryable() const { return retryable_; }
  std::optional<BaselineTiming> baselineTiming() const { return timing_; }
  // Where this run's time went (seconds): the trusted start (preflight,
  // calibration, mapping, the filter) and the library's load; the
  // correctness and timing phases are in the answer itself.
  double trustedStartSeconds() const { return trustedStartSeconds_; }
  double loadSeconds() const { return loadSeconds_; }
  // Where the judge's time per call went, summed over every call of the
  // correctness and timing phases (the profile of docs/api.md).
  struct CallPhases {
    int calls = 0;
    double calibration = 0;  // the trusted start's empty calls, their probes included
    double draw = 0;         // inputs drawn, the oracle's expected outputs
    double prepare = 0;      // outputs reset, L2 flushed, the probe before, the outputs' unwritten check
    double roundTrip = 0;    // the worker's call, from the request to its ring (or reply)
    double verify = 0;       // the outputs and canaries read, the worker stopped
    double stopAndReply = 0; // the rest of the exchange: stops, probes after the ring, the reply
    double cpuReads = 0;     // the worker tree's CPU time read before and after each call
    double reap = 0;         // of the trusted start: the earlier evaluations' killed workers reaped
    double beforeTimed = 0;  // the other workers still starting, stopped (or waited for) before the timed calls
  };
  const CallPhases &callPhases() const { return phases_; }
  void setGpuBaseline(const BaselineTiming *baseline) { gpuBaseline_ = baseline; }
  // Called once before the timed calls: the judge lets the next worker finish
  // its start-up there, so that nothing but this worker and the judge uses
  // the GPU while calls are timed.
  void setBeforeTimedCalls(std::function<void()> hook) { beforeTimedCalls_ = std::move(hook); }
  // Called once the timed calls are over, however they ended (a verdict in
  // the middle of them included): what the hook above stopped goes on.
  void setAfterTimedCalls(std::function<void()> hook) { afterTimedCalls_ = std::move(hook); }
  // Called before the task's shared buffers are reset and mapped: the judge
  // makes sure the previous evaluations' workers are gone.
  void setBeforeBuffers(std::function<void()> hook) { beforeBuffers_ = std::move(hook); }
  // The oracle's call that failed, when run() threw its TaskError (and no other).
  const std::optional<OracleCall> &failedOracleCall() const { return failedOracleCall_; }

private:
  // Draws the call's inputs; with `expectFromOracle`, the oracle's outputs for them are the expected ones.
  void drawInputs(const OracleCall &call, bool expectFromOracle);
  struct Call {
    worker::Message reply;
    double wallMs = 0, preProbeMs = 0, postWaitMs = 0, cpuMs = 0;
    double afterReplyProbeMs = 0; // the probe once the worker is stopped after its reply (doorbell calls)
    bool byDoorbell = false;
    std::optional<CallCheck> check; // the outputs, read while the worker was stopped
  };
  bool trustedStart(boost::json::object &verdict);
  // `verifyTolerance`: check the outputs (with the benchmark's tolerance when true).
  bool callOnce(const SizeBinding &sizes, std::uint32_t flags, std::optional<bool> verifyTolerance, Call &call,
                boost::json::object &verdict);
  boost::json::object faultVerdict();
  boost::json::object verdict(const char *status, const std::string &error) const;
  double secondsLeft() const;

  const EvaluationRequest &request_;
  TaskBuffers &buffers_;
  WorkerSession &worker_;
  GpuControl *gpu_;
  EntryFunction oracle_;
  bool oracleOnHost_;
  Role role_;
  double deadline_ = 0;
  double trustedStartSeconds_ = 0, loadSeconds_ = 0;
  CallPhases phases_;
  bool loaded_ = false, retryable_ = false;
  RoundTripCalibration calibration_;
  std::optional<BaselineTiming> timing_;
  const BaselineTiming *gpuBaseline_ = nullptr;
  std::function<void()> beforeTimedCalls_, afterTimedCalls_, beforeBuffers_;
  std::optional<OracleCall> failedOracleCall_;
};

// Whether the trusted oracle computes alone (no worker alive) the call it
// failed with a candidate's worker alive, on the same inputs: the failure
// is then the worker's doing (one that took the GPU's memory starves
// PyTorch eager), else the task's.
bool oracleRunsAlone(TaskBuffers &buffers, EntryFunction oracle, bool oracleOnHost, const OracleCall &call);

} // namespace cudaperf::judge
