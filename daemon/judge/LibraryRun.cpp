#include "LibraryRun.h"

#include "ProcessTree.h"
#include "TimedCallCount.h"

#include "cudaperf/daemon/TaskData.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace cudaperf::judge {

namespace json = boost::json;
using worker::Message;
using worker::Op;

namespace {

constexpr int kCalibrationCalls = 30;
constexpr int kBusyCallsToReject = 3;
// Longest wait for a worker's leftover GPU work after a call (then the
// probe before the next call finds the GPU busy).
constexpr double kUnfinishedWaitSeconds = 2.0;
// The worker's CPU between its stop at the doorbell and its reply that is
// forgiven (its driver's wake-up, the reply; CUPTI's flush in a traced call:
// 4.3 ms in a call of 2.8 ms seen on the H200 under load).
constexpr double kReplyCpuMs = 1.0;
constexpr double kTracedReplyCpuMs = 10.0;

// Adds the seconds from its construction to its end to `into`, however the scope is left.
struct SecondsInto {
  double start;
  double &into;
  ~SecondsInto() { into += steadySeconds() - start; }
};

std::uint64_t freshKey() {
  static std::random_device entropy;
  return (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
}

json::array toJson(const std::vector<double> &values) {
  json::array array;
  for (double v : values)
    array.push_back(v);
  return array;
}

json::object sizesToJson(const SizeBinding &sizes) {
  json::object object;
  for (const auto &[name, value] : sizes)
    object[name] = value;
  return object;
}

// The threads that used the most CPU time between two readings (the worker
// is stopped at both), by name: what a budget's margin is made of.
json::array threadCpuDelta(const std::vector<ThreadCpu> &before, const std::vector<ThreadCpu> &after) {
  std::vector<std::pair<double, std::string>> used;
  for (const ThreadCpu &thread : after) {
    double earlier = 0;
    for (const ThreadCpu &old : before)
      if (old.tid == thread.tid)
        earlier = old.ms;
    const std::string name = printableName(thread.name); // the worker's to choose
    if (thread.ms - earlier > 0.001)
      used.emplace_back(thread.ms - earlier, name);
  }
  std::sort(used.begin(), used.end(), std::greater<>());
  json::array threads;
  for (std::size_t i = 0; i < used.size() && i < 8; ++i)
    threads.push_back(json::object{{"name", used[i].second}, {"ms", used[i].first}});
  return threads;
}

json::object activityToJson(const Message &reply, double callMs) {
  return {{"kernels", reply.kernels},
          {"kernel_ms", reply.kernelMs},
          {"gpu_busy_ms", reply.busyMs},
          {"call_wall_ms", callMs}}; // the judge's round trip, CUPTI's launch overhead included
}

// The library for the worker to load: a sealed in-memory copy, so that the
// worker needs no view of the folder it lies in (a spare worker's sandbox is
// made before its candidate is known) and can change neither the copy nor
// the cached file. Falls back to the file itself where memfds are refused.
int sealedCopy(const std::string &path, std::string &problem) {
  const int file = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file < 0) {
    problem = "cannot open the library " + path + ": " + std::strerror(errno);
    return -1;
  }
  const int copy = memfd_create("candidate.so", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (copy < 0)
    return file;
  bool copied = true;
  char chunk[1 << 16];
  for (ssize_t got; copied && (got = read(file, chunk, sizeof chunk)) != 0;) {
    if (got < 0 && errno == EINTR)
      continue;
    copied = got > 0 && write(copy, chunk, static_cast<std::size_t>(got)) == got;
  }
  close(file);
  if (!copied || fcntl(copy, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    problem = "cannot copy the library " + path + ": " + std::strerror(errno);
    close(copy);
    return -1;
  }
  return copy;
}

} // namespace

LibraryRun::LibraryRun(const EvaluationRequest &request, TaskBuffers &buffers, WorkerSession &worker, GpuControl *gpu,
                       EntryFunction oracle, bool oracleOnHost, Role role)
    : request_(request), buffers_(buffers), worker_(worker), gpu_(gpu), oracle_(oracle), oracleOnHost_(oracleOnHost),
      role_(role) {}

double LibraryRun::secondsLeft() const { return deadline_ - steadySeconds(); }

json::object LibraryRun::verdict(const char *status, const std::string &error) const {
  return {{"status", status}, {"error", error}};
}

// How the worker let the judge down, as the candidate's verdict.
json::object LibraryRun::faultVerdict() {
  const std::string message = worker_.message();
  switch (worker_.fault()) {
  case WorkerFault::Silent: {
    std::ostringstream limit;
    limit << request_.wallSeconds;
    return verdict("timeout", "did not finish within the wall-clock limit of " + limit.str() + " s");
  }
  case WorkerFault::Violation:
    return verdict("rejected", "the candidate tampered with the judge's channel: " + message);
  case WorkerFault::Died:
  case WorkerFault::None:
    break;
  }
  const sandbox::Result &run = worker_.finish();
  switch (run.outcome) {
  case sandbox::Outcome::Signaled:
    return verdict("runtime_error", "the worker was killed by signal " + std::to_string(run.signal) + " (" +
                                        strsignal(run.signal) + ") while the candidate ran");
  case sandbox::Outcome::CpuLimit:
    return verdict("timeout",
                   "used more than " + std::to_string(static_cast<int>(request_.wallSeconds)) + " s of CPU time");
  case sandbox::Outcome::OutputLimit:
    return verdict("runtime_error", "wrote more than the output cap to stdout or stderr (the run was stopped)");
  case sandbox::Outcome::FileSizeLimit:
    return verdict("runtime_error", "wrote a file past the size limit");
  case sandbox::Outcome::WallTimeout:
    return verdict("timeout", "did not finish within the wall-clock limit");
  default:
    return verdict("runtime_error", "the worker exited with status " + std::to_string(run.exitCode) +
                                        " while the candidate ran (exit() or a crash inside the candidate)");
  }
}

// Before any candidate code exists in the worker: the GPU and the shared
// memory work, and the round trip of an empty call is measured.
bool LibraryRun::trustedStart(json::object &failure) {
  Memory &memory = buffers_.memory();
  const char *unusable = memory.device() ? "no_gpu" : "harness_error";
  retryable_ = true;
  SharedBuffer probe;
  try {
    probe = memory.share(4096);
  } catch (const JudgeFailure &) {
    // The GPU's memory may still be held by the last worker (killed, its
    // teardown overlapping this start; a candidate that filled the memory):
    // reaped, then once more. Failing again is the machine's, never a verdict
    // that ends the judge.
    if (beforeBuffers_)
      beforeBuffers_();
    try {
      probe = memory.share(4096);
    } catch (const JudgeFailure &error) {
      failure = verdict(unusable, std::string("the judge cannot allocate the worker's probe buffer: ") + error.what());
      return false;
    }
  }
  memory.fill(probe.base, 0, probe.totalBytes);
  memory.synchronize();
  Message request;
  request.op = Op::Preflight;
  request.flags = memory.device() ? worker::kDeviceMemory : worker::kHostMemory;
  request.bytes[0] = probe.totalBytes;
  Message reply;
  const int doorbell = worker_.doorbellDescriptor();
  std::vector<int> descriptors{probe.fd};
  if (doorbell >= 0)
    descriptors.push_back(doorbell);
  const bool answered = worker_.exchange(request, Op::PreflightDone, reply, deadline_, descriptors);
  if (answered && reply.status == 0 && (reply.flags & worker::kDoorbellRings))
    worker_.enableDoorbell(memory.device());
  const bool written = answered && reply.status == 0 &&
                       memory.countUnlike(probe.base, probe.totalBytes, nullptr, worker::kPreflightPattern) == 0;
  memory.release(probe);
  if (!written) {
    failure = verdict(unusable, "the worker's preflight failed: " +
                                    std::string(!answered      ? worker_.message()
                                                : reply.status ? reply.text
                                                               : "the judge did not read back what the worker wrote"));
    return false;
  }
  std::vector<double> wall, events, probes;
  // The probe after each empty call as after a real one (at its end): the
  // idle latency that post-call waits are measured from.
  double probeMs = 0;
  const CallEnd end{[this, &probeMs] { probeMs = gpu_ ? gpu_->probeMs() : 0.0; }, {}, {}};
  // The worker's CPU per call, over the calls after its first ones (the
  // first memset's one-time costs).
  constexpr int kCpuCalibrationFrom = 10;
  double cpuFrom = 0;
  const double calibrationStart = steadySeconds();
  for (int i = 0; i < kCalibrationCalls; ++i) {
    if (i == kCpuCalibrationFrom)
      cpuFrom = worker_.cpuSeconds();
    Message empty;
    empty.op = Op::Empty;
    if (!worker_.exchange(empty, Op::Returned, reply, deadline_, {}, &end) || reply.status != 0) {
      failure = verdict(unusable, "the worker's calibration failed: " + worker_.message() + reply.text);
      return false;
    }
    wall.push_back(worker_.lastRoundTripMs());
    events.push_back(reply.eventMs);
    probes.push_back(probeMs);
  }
  calibration_ = calibrate(wall, events, probes);
  calibration_.cpuPerCallMs = 1000 * (worker_.cpuSeconds() - cpuFrom) / (kCalibrationCalls - kCpuCalibrationFrom);
  phases_.calibration = steadySeconds() - calibrationStart;
  // The task's buffers: only once no earlier worker can still touch them.
  if (beforeBuffers_) {
    const double reapStart = steadySeconds();
    beforeBuffers_();
    phases_.reap += steadySeconds() - reapStart;
  }
  buffers_.resetCanaries();
  Message map = buffers_.mapMessage();
  if (!worker_.exchange(map, Op::Mapped, reply, deadline_, buffers_.descriptors()) || reply.status != 0) {
    failure = verdict(unusable, "the worker could not map the buffers: " + worker_.message() + reply.text);
    return false;
  }
  // The system-call filter, in an exchange of its own before any candidate
  // code exists: a failure here is the machine's (isolation missing).
  Message filter;
  filter.op = Op::Filter;
  if (!worker_.exchange(filter, Op::Filtered, reply, deadline_) || reply.status != 0) {
    failure = verdict("harness_error",
                      "the worker could not install its system-call filter: " + worker_.message() + reply.text);
    return false;
  }
  retryable_ = false;
  return true;
}

bool LibraryRun::callOnce(const SizeBinding &sizes, std::uint32_t flags, std::optional<bool> verifyTolerance,
                          Call &call, json::object &failure) {
  const double prepareStart = steadySeconds();
  ++phases_.calls;
  buffers_.prepareCall(sizes);
  if (gpu_) {
    gpu_->flushCaches();
    call.preProbeMs = gpu_->probeMs();
  }
  if (!buffers_.outputsUnwritten(sizes)) {
    failure = verdict("rejected", "its outputs were written before the call (work set off by the judge's own "
                                  "writes, outside the timed window)");
    return false;
  }
  const double cpuReadStart = steadySeconds();
  phases_.prepare += cpuReadStart - prepareStart;
  const double cpuBefore = worker_.cpuSeconds();
  phases_.cpuReads += steadySeconds() - cpuReadStart;
  // The doorbell (or "returned") is the worker's word: the call is over when
  // the GPU has nothing of the worker's left to run. The judge's probe
  // kernel, launched at once, waits for that (a time slice at a time while
  // the worker's kernels run on), and all the waiting is charged to the call.
  // The outputs are read with the worker stopped: what it had not done by
  // then does not count, whatever it does before its reply.
  //
  // Two probes at once (the stop sent, not yet confirmed): the second is
  // launched the moment the first is back, so that a kernel the worker got
  // in between the ring and its stop is still on the GPU for it to wait on.
  // The CPU the worker uses from its stop on (continued, it replies) is not
  // its calls': up to kReplyCpuMs of it is forgiven, CUPTI's flush in a
  // traced call more (a worker holding its reply back gains nothing by it).
  std::vector<double> latencies;
  double cpuAtStop = -1, verifySeconds = 0;
  const CallEnd end{[&] {
                      if (gpu_) {
                        latencies.push_back(gpu_->probeMs());
                        latencies.push_back(gpu_->probeMs());
                      }
                    },
                    [&] {
                      cpuAtStop = worker_.cpuSeconds();
                      if (gpu_) {
                        const double until = std::min(deadline_, steadySeconds() + kUnfinishedWaitSeconds);
                        while (latencies.back() > calibration_.probeLimitMs && steadySeconds() < until)
                          latencies.push_back(gpu_->probeMs());
                      }
                      if (verifyTolerance) {
                        const double verifyStart = steadySeconds();
                        call.check = buffers_.verify(sizes, *verifyTolerance);
                        verifySeconds = steadySeconds() - verifyStart;
                      }
                    },
                    [&] {
                      // Nothing of an honest worker's runs on the GPU after its reply.
                      if (gpu_)
                        call.afterReplyProbeMs = gpu_->probeMs();
                    }};
  const double exchangeStart = steadySeconds();
  if (!worker_.exchange(buffers_.callMessage(sizes, flags), Op::Returned, call.reply, deadline_, {}, &end)) {
    failure = faultVerdict();
    return false;
  }
  const double exchangeEnd = steadySeconds();
  call.wallMs = worker_.lastRoundTripMs();
  call.byDoorbell = worker_.lastEndedByDoorbell();
  call.postWaitMs = postCallWaitMs(latencies, calibration_);
  const double cpuAfter = worker_.cpuSeconds();
  phases_.cpuReads += steadySeconds() - exchangeEnd;
  phases_.roundTrip += call.wallMs / 1000;
  phases_.verify += verifySeconds;
  phases_.stopAndReply += std::max(0.0, exchangeEnd - exchangeStart - call.wallMs / 1000 - verifySeconds);
  if (call.byDoorbell && cpuAtStop >= 0) {
    const double replyAllowanceMs = (flags & worker::kTraceKernels) ? kTracedReplyCpuMs : kReplyCpuMs;
    call.cpuMs = 1000 * (cpuAtStop - cpuBefore) + std::max(0.0, 1000 * (cpuAfter - cpuAtStop) - replyAllowanceMs);
  } else {
    call.cpuMs = 1000 * (cpuAfter - cpuBefore);
  }
  if (call.reply.status != 0) {
    failure = verdict("runtime_error", call.reply.text);
    return false;
  }
  return true;
}

json::object LibraryRun::run() {
  const auto began = steadySeconds();
  deadline_ = began + request_.wallSeconds;
  const TaskSpec &task = request_.task;
  const bool deviceMemory = buffers_.memory().device();
  json::object failure;
  worker_.freezeBetweenRequests();
  const bool started = trustedStart(failure);
  trustedStartSeconds_ = steadySeconds() - began;
  if (!started)
    return failure;

  // Load: the library's constructors run now; from here on every failure is its own.
  {
    const double loadStart = steadySeconds();
    const SecondsInto loadClock{loadStart, loadSeconds_};
    std::string problem;
    const int library = sealedCopy(request_.library, problem);
    if (library < 0)
      return verdict("harness_error", problem);
    struct Closer {
      int fd;
      ~Closer() { close(fd); }
    } closer{library};
    Message request, reply;
    request.op = Op::Load;
    const std::string text = std::filesystem::path(request_.library).filename().string() + '\0' + task.entry;
    std::memcpy(request.text, text.data(), std::min(text.size(), sizeof request.text - 2));
    const double cpuBefore = worker_.cpuSeconds();
    // The trusted baseline may take its time: PyTorch eager's loads LibTorch
    // and warms its libraries up in its constructor.
    const bool trusted = role_ == Role::Baseline;
    const double loadDeadline = trusted ? deadline_ : std::min(deadline_, loadStart + kLoadLimitSeconds);
    if (!worker_.exchange(request, Op::Loaded, reply, loadDeadline, {library})) {
      loaded_ = true; // its constructors ran: whatever happened is the candidate's
      if (worker_.fault() == WorkerFault::Silent && loadDeadline < deadline_)
        return verdict("timeout", "loading the library (its constructors) took more than " +
                                      std::to_string(static_cast<int>(kLoadLimitSeconds)) + " s");
      return faultVerdict();
    }
    loaded_ = true;
    // Read while the worker is stopped (it is between requests).
    const double loadCpuMs = (worker_.cpuSeconds() - cpuBefore) * 1e3;
    const double loadMs = (steadySeconds() - loadStart) * 1e3;
    if (const CpuUse use = loadCpuUse(loadCpuMs, loadMs); use.hostComputation && !trusted) {
      json::object rejected =
          verdict("rejected", "loading the library used " + std::to_string(loadCpuMs) + " ms of CPU time in " +
                                  std::to_string(loadMs) + " ms (budget " + std::to_string(use.budgetMs) +
                                  " ms: one busy thread): constructors must not compute or spin");
      rejected["rejected_by"] = "cpu_budget";
      rejected["rejected_ratio"] = loadCpuMs / use.budgetMs;
      return rejected;
    }
    if (reply.status != 0) // whatever it says: its constructors have run
      return verdict("rejected", reply.text);
  }

  // Correctness: every size, `trials` seeded draws each, the trial picking the distribution.
  json::object result;
  json::array failures, largestActivity;
  int passed = 0, total = 0;
  double maxAbsError = 0;
  std::size_t expectedOffset = 0, largest = 0;
  for (std::size_t s = 1; s < task.correctnessSizes.size(); ++s)
    if (expectedOutputBytes(task, s) > expectedOutputBytes(task, largest))
      largest = s;
  std::string noKernels, traceUnavailable;
  // An imported task's candidate: expected outputs from the checked baseline (LibraryRun.h, expectedSeed).
  const bool oracleCorrectness = role_ == Role::Candidate && request_.expectedSeed != 0;
  if (oracleCorrectness && !oracle_)
    throw TaskError("the request names an expected_seed but the judge has no baseline to take expected outputs from");
  const auto correctnessStart = steadySeconds();
  double correctnessCpuMs = 0, correctnessCallsMs = 0;
  int correctnessCalls = 0;
  for (int trial = 0; trial < request_.trials; ++trial)
    for (std::size_t s = 0; s < task.correctnessSizes.size(); ++s) {
      ++total;
      const SizeBinding &sizes = task.correctnessSizes[s];
      drawInputs({sizes, testSeed(request_.seed, static_cast<std::size_t>(trial), s), static_cast<std::size_t>(trial)},
                 oracleCorrectness);
      if (!oracleCorrectness) {
        const double loadStart = steadySeconds();
        buffers_.loadExpected(request_.expected, expectedOffset, sizes);
        phases_.draw += steadySeconds() - loadStart;
      }
      Call call;
      const bool traced = s == largest && deviceMemory;
      if (!callOnce(sizes, traced ? worker::kTraceKernels : 0, false, call, failure))
        return failure;
      // Checked after every call: a spinner is stopped at its first calls, not after the phase.
      correctnessCpuMs += call.cpuMs;
      correctnessCallsMs += call.wallMs;
      const CpuUse cpu =
          correctnessCpuUse(correctnessCpuMs, correctnessCallsMs, ++correctnessCalls, calibration_.cpuPerCallMs);
      // Candidates' rule: the baseline is trusted (PyTorch eager's host-side dispatch is its own cost).
      if (cpu.hostComputation && role_ != Role::Baseline) {
        json::object rejected = verdict(
            "rejected", "the worker's processes used " + std::to_string(correctnessCpuMs) + " ms of CPU time in " +
                            std::to_string(correctnessCalls) + " correctness calls of " +
                            std::to_string(correctnessCallsMs) + " ms (budget " + std::to_string(cpu.budgetMs) +
                            " ms: one busy thread): the work must be done by the candidate's own kernels");
        rejected["rejected_by"] = "cpu_budget";
        rejected["rejected_ratio"] = correctnessCpuMs / cpu.budgetMs;
        return rejected;
      }
      if (traced) {
        if (call.reply.traceAvailable) {
          largestActivity.push_back(activityToJson(call.reply, call.wallMs));
          if (call.reply.kernels == 0)
            noKernels = "no kernel ran on the GPU during the call at the largest correctness size (trial " +
                        std::to_string(trial) + "): the candidate must compute with its own kernels";
        } else {
          traceUnavailable = call.reply.text;
        }
      }
      CallCheck check = std::move(*call.check);
      maxAbsError = std::max(maxAbsError, check.maxAbsError);
      if (check.passed()) {
        ++passed;
        continue;
      }
      check.failure["sizes"] = sizesToJson(sizes);
      check.failure["trial"] = trial;
      check.failure["distribution"] = static_cast<std::size_t>(trial) % distributionCount(task);
      check.failure["reason"] = check.reason;
      failures.push_back(std::move(check.failure));
    }
  const bool timed = !request_.skipTiming;
  if (timed)
    ++total; // the timed calls at the benchmark size, every one verified: one more test
  json::object correctness{{"passed", passed},
                           {"total", total},
                           {"max_abs_err", std::isfinite(maxAbsError) ? maxAbsError : -1.0},
                           {"failures", failures},
                           {"expected_from", oracleCorrectness ? "baseline" : "reference"},
                           {"seconds", steadySeconds() - correctnessStart}};
  result["correctness"] = correctness;
  result["kernel_trace"] = traceUnavailable.empty() || !largestActivity.empty()
                               ? json::value(json::object{{"largest_correctness_size", largestActivity}})
                               : json::value(json::object{{"unavailable", traceUnavailable}});
  result["calibration"] = json::object{{"round_trip_ms", calibration_.wallMedianMs},
                                       {"gap_ms", calibration_.gapMedianMs},
                                       {"gap_band_ms", json::array{calibration_.gapLowMs, calibration_.gapHighMs}},
                                       {"probe_idle_ms", calibration_.probeIdleMs},
                                       {"probe_limit_ms", calibration_.probeLimitMs},
                                       {"doorbell", worker_.doorbellEnabled()},
                                       {"cpu_per_call_ms", calibration_.cpuPerCallMs}};
  const bool correctnessPassed = passed == total - (timed ? 1 : 0);
  if (!correctnessPassed) {
    result["status"] = "wrong_answer";
    return result;
  }
  if (!noKernels.empty()) {
    result["status"] = "rejected";
    result["error"] = noKernels;
    return result;
  }
  if (!timed) {
    result["status"] = "ok";
    return result;
  }

  // Timing: a traced call, warm-up calls, then the timed runs, every one on
  // inputs of its own, with the L2 flushed before it, verified after it.
  const double beforeTimedStart = steadySeconds();
  if (beforeTimedCalls_)
    beforeTimedCalls_();
  struct AfterTimedCalls {
    const std::function<void()> &hook;
    ~AfterTimedCalls() {
      if (hook)
        hook();
    }
  } afterTimedCalls{afterTimedCalls_};
  const auto timingStart = steadySeconds();
  phases_.beforeTimed = timingStart - beforeTimedStart;
  const SizeBinding &sizes = task.benchmarkSize;
  const bool verifyTimed = role_ == Role::Candidate && oracle_;
  const int calls = 1 + request_.warmup + request_.runs;
  // The baseline takes every call: its gaps are the reference of every candidate's.
  const TimedCallPolicy callPolicy{role_ == Role::Candidate ? request_.minRuns : request_.runs, request_.runs,
                                   request_.medianHalfWidth};
  std::vector<double> samples, judgeSamples, eventSamples, wallSamples, unfinishedSamples, postWaits;
  // Unfinished work is what the post-call probes wait for beyond what the
  // trusted baseline's calls of this shape leave (empty calls leave less).
  const double unfinishedLimit =
      unfinishedLimitMs(calibration_, gpuBaseline_ ? gpuBaseline_->postProbe : ProbeReference{});
  int outside = 0, busyBefore = 0, busyAfterReply = 0, verified = 0, endedByDoorbell = 0;
  double unfinishedMax = 0, callsMs = 0, maxRatio = 0, tracedBusyMs = -1;
  double uncountedCpuMs = 0, uncountedCallsMs = 0;
  double countedCpuMs = 0;
  std::vector<ThreadCpu> threadsAtStart; // where the timed calls' CPU went, for the answer
  json::object timing;
  for (int k = 0; k < calls; ++k) {
    // The timed calls' inputs come from the judge's own entropy and the keyed
    // generator: nothing a candidate sees of them (or of the correctness
    // inputs, whose seed it might work out) predicts the next call's.
    drawInputs({sizes, freshKey(), 0, freshKey() | 1}, verifyTimed);
    const bool traced = k == 0 && deviceMemory;
    const bool counted = k > request_.warmup;
    if (k == request_.warmup + 1)
      threadsAtStart = threadCpuTimes(worker_.treeRoot());
    Call call;
    if (!callOnce(sizes, traced ? worker::kTraceKernels : 0, verifyTimed ? std::optional<bool>(true) : std::nullopt,
                  call, failure))
      return failure;
    endedByDoorbell += call.byDoorbell;
    if (verifyTimed) {
      CallCheck check = std::move(*call.check);
      ++verified;
      maxRatio = std::max(maxRatio, check.maxRatio);
      if (!check.passed()) {
        check.failure["sizes"] = sizesToJson(sizes);
        check.failure["timed_call"] = k;
        check.failure["reason"] = check.reason + " in timed call " + std::to_string(k) + " at the benchmark size";
        correctness["failures"].as_array().push_back(std::move(check.failure));
        result["correctness"] = correctness;
        result["status"] = "wrong_answer";
        return result;
      }
    }
    if (traced) {
      if (call.reply.traceAvailable) {
        timing["kernel_trace"] = activityToJson(call.reply, call.wallMs);
        tracedBusyMs = call.reply.busyMs;
        if (call.reply.kernels == 0) {
          result["status"] = "rejected";
          result["error"] = "no kernel ran on the GPU during the call at the benchmark size: the candidate must "
                            "compute with its own kernels";
          return result;
        }
      }
    }
    // The calls that are not timed (the traced one, the warm-ups) get the
    // correctness calls' budget, one busy thread and an allowance (CUPTI's
    // bookkeeping fits it): spinning every core there gains no time but
    // slows the other GPUs' judges on this host.
    if (!counted) {
      uncountedCpuMs += call.cpuMs;
      uncountedCallsMs += call.wallMs;
      const CpuUse cpu = correctnessCpuUse(uncountedCpuMs, uncountedCallsMs, k + 1, calibration_.cpuPerCallMs);
      if (role_ == Role::Candidate && cpu.hostComputation) {
        result["status"] = "rejected";
        result["rejected_by"] = "cpu_budget";
        result["rejected_ratio"] = uncountedCpuMs / cpu.budgetMs;
        result["error"] = "the worker's processes used " + std::to_string(uncountedCpuMs) + " ms of CPU time in " +
                          std::to_string(k + 1) + " untimed calls of " + std::to_string(uncountedCallsMs) +
                          " ms (budget " + std::to_string(cpu.budgetMs) +
                          " ms): the work must be done by the candidate's own kernels, not on the host";
        return result;
      }
    }
    // One call is enough to see a host computation: no need for forty. The
    // first untraced one: CUPTI's own CPU time in the traced call is no
    // candidate's (on the H200, 4.3 ms in a call of 2.8 ms under a compile load).
    if (k == 1 && deviceMemory) {
      const CpuUse use = judgeCpuUse(call.cpuMs, call.wallMs, 1, false, calibration_.cpuPerCallMs);
      if (role_ == Role::Candidate && use.hostComputation) {
        result["status"] = "rejected";
        result["rejected_by"] = "cpu_budget";
        result["rejected_ratio"] = call.cpuMs / use.budgetMs;
        result["error"] = "the worker used " + std::to_string(call.cpuMs) + " ms of CPU time in a call of " +
                          std::to_string(call.wallMs) + " ms (budget " + std::to_string(use.budgetMs) +
                          " ms): the work must be done by the candidate's own kernels, not on the host";
        return result;
      }
    }
    if (!counted)
      continue;
    const CallTime time = callTime(call.wallMs, call.reply.eventMs, call.postWaitMs, unfinishedLimit, calibration_);
    postWaits.push_back(call.postWaitMs);
    samples.push_back(time.ms);
    wallSamples.push_back(call.wallMs);
    unfinishedSamples.push_back(time.unfinishedMs);
    judgeSamples.push_back(time.judgeMs);
    eventSamples.push_back(call.reply.eventMs);
    outside += time.workerTimeOutside;
    unfinishedMax = std::max(unfinishedMax, time.unfinishedMs);
    callsMs += call.wallMs;
    countedCpuMs += call.cpuMs;
    busyBefore += gpu_ && gpuBusyBeforeCall(call.preProbeMs, calibration_);
    busyAfterReply += gpu_ && call.byDoorbell && gpuBusyBeforeCall(call.afterReplyProbeMs, calibration_);
    // Only a run with nothing against it stops early: the rule that counts
    // calls (a GPU busy with the candidate's leftovers, kBusyCallsToReject)
    // and the charge for unfinished work see every call of a run that gave
    // them anything.
    const bool nothingCounted = busyBefore == 0 && busyAfterReply == 0 && unfinishedMax == 0;
    if (nothingCounted && timingSettled(samples, callPolicy))
      break;
  }
  const int timedCalls = static_cast<int>(samples.size());
  // The counted calls' CPU, each without its forgiven reply window (the
  // worker is stopped between calls: nothing runs outside them).
  const double cpuMs = countedCpuMs;
  // The worker's event times against the gaps of the task's trusted baseline
  // (calls of the same shape: the fairest reference); without one, the
  // per-call band of the calibration above.
  GapReference ownGaps;
  std::string workerTimes = "per-call band";
  double gapShift = 0, toleratedMedian = 0;
  ProbeReference ownPostProbe;
  if (role_ == Role::Baseline) {
    // The baseline's own calls are the reference: the same rule for both sides of the speedup.
    ownPostProbe = postCallProbeReference(postWaits);
    const double limit = unfinishedLimitMs(calibration_, ownPostProbe);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double unfinished = std::max(0.0, postWaits[i] - limit);
      samples[i] += unfinished - unfinishedSamples[i];
      unfinishedSamples[i] = unfinished;
    }
    ownGaps = gapReference(wallSamples, eventSamples);
    if (ownGaps.known) {
      samples = timedSamples(wallSamples, eventSamples, unfinishedSamples, ownGaps).ms;
      workerTimes = "trusted (the baseline)";
    }
  } else if (gpuBaseline_ && gpuBaseline_->gaps.known) {
    std::vector<double> tolerated;
    for (double wait : postWaits)
      tolerated.push_back(toleratedWaitMs(wait, calibration_, gpuBaseline_->postProbe));
    const TimedSamples judged =
        timedSamples(wallSamples, eventSamples, unfinishedSamples, gpuBaseline_->gaps, tolerated);
    toleratedMedian = median(tolerated);
    samples = judged.ms;
    gapShift = judged.gapShiftMs;
    workerTimes = judged.workerTimesTrusted ? "believed" : "rejected";
  }
  const double medianMs = median(samples);
  timing["median_ms"] = medianMs;
  timing["cv"] = coefficientOfVariation(samples);
  timing["samples"] = toJson(samples);
  timing["judge_median_ms"] = median(judgeSamples);
  timing["worker_event_median_ms"] = median(eventSamples);
  timing["worker_times_outside_band"] = outside;
  timing["worker_times"] = workerTimes;
  timing["gap_shift_ms"] = gapShift;
  timing["tolerated_wait_median_ms"] = toleratedMedian; // shares the gap shift's 20 us budget
  timing["unfinished_after_return_max_ms"] = unfinishedMax;
  timing["unfinished_limit_ms"] =
      role_ == Role::Baseline ? unfinishedLimitMs(calibration_, ownPostProbe) : unfinishedLimit;
  timing["post_call_wait_median_ms"] = median(postWaits);
  timing["calls_ended_by_doorbell"] = endedByDoorbell; // of every call at this size, the untimed ones included
  timing["verified_calls"] = verified;
  timing["timed_calls"] = timedCalls; // minRuns..runs: fewer when the median settled early
  timing["max_tolerance_ratio"] = std::isfinite(maxRatio) ? maxRatio : -1.0;
  // The phase's fixed CPU allowance is for `runs` calls: a run that stopped
  // early gets its share of it, not all of it over fewer calls.
  const CpuUse use = judgeCpuUse(cpuMs, callsMs, timedCalls, !deviceMemory, calibration_.cpuPerCallMs,
                                 static_cast<double>(timedCalls) / std::max(1, request_.runs));
  timing["cpu"] = json::object{{"ms", cpuMs},
                               {"budget_ms", use.budgetMs},
                               {"calls_ms", callsMs},
                               {"empty_call_ms", calibration_.cpuPerCallMs},
                               {"threads", threadCpuDelta(threadsAtStart, threadCpuTimes(worker_.treeRoot()))}};
  timing["gpu_busy_before_calls"] = busyBefore;
  timing["gpu_busy_after_replies"] = busyAfterReply;
  timing["gpu_busy_calls_to_reject"] = kBusyCallsToReject; // the rule, for a control run's reader (GpuContention.h)
  const double gpuShare = gpuShareOfCall(tracedBusyMs, medianMs, gapShift, workerTimes != "rejected");
  if (tracedBusyMs >= 0)
    timing["gpu_share"] = gpuShare;
  if (request_.cpuBaselineMs > 0) {
    timing["cpu_baseline_ms"] = request_.cpuBaselineMs;
    timing["speedup_cpu"] = medianMs > 0 ? request_.cpuBaselineMs / medianMs : 0.0;
  }
  if (gpuBaseline_) {
    // Its gaps too: what the candidate's gap_shift_ms is measured against.
    timing["gpu_baseline"] = json::object{{"median_ms", gpuBaseline_->medianMs},
                                          {"cv", gpuBaseline_->cv},
                                          {"samples", toJson(gpuBaseline_->samples)},
                                          {"gap_median_ms", gpuBaseline_->gaps.medianMs},
                                          {"gap_spread_ms", gpuBaseline_->gaps.spreadMs},
                                          {"worker_gap_medians_ms", toJson(gpuBaseline_->workerGapMediansMs)},
                                          {"unfinished_reference_ms", gpuBaseline_->postProbe.known
                                                                          ? json::value(gpuBaseline_->postProbe.limitMs)
                                                                          : json::value(nullptr)},
                                          {"age_seconds", steadySeconds() - gpuBaseline_->timedAt}};
    // Against the baseline's median over as many calls as this candidate's
    // (its first ones): a run that stopped early is not compared with the
    // later calls of a longer one (clocks can sag over a run of heavy calls).
    const double baselineMs = medianOverFirstCalls(gpuBaseline_->samples, timedCalls, gpuBaseline_->medianMs);
    timing["gpu_baseline_ms"] = baselineMs;
    timing["speedup_gpu"] = medianMs > 0 ? baselineMs / medianMs : 0.0;
  }
  timing["seconds"] = steadySeconds() - timingStart;
  result["timing"] = timing;
  correctness["passed"] = passed + 1;
  result["correctness"] = correctness;
  result["status"] = "ok";
  if (role_ == Role::Baseline) {
    timing_ = BaselineTiming{samples, medianMs,     coefficientOfVariation(samples),
                             ownGaps, ownPostProbe, {ownGaps.known ? ownGaps.medianMs : -1.0}};
    return result;
  }
  if (busyBefore >= kBusyCallsToReject || busyAfterReply >= kBusyCallsToReject) {
    result["status"] = "rejected";
    result["rejected_by"] = "gpu_busy"; // the judge asks a control run whose work it was (GpuContention.h)
    result["error"] = "the GPU was busy with work the candidate left running between calls (before " +
                      std::to_string(busyBefore) + " and after the replies of " + std::to_string(busyAfterReply) +
                      " of " + std::to_string(timedCalls) + " timed calls)";
  } else if (use.hostComputation) {
    result["status"] = "rejected";
    result["rejected_by"] = "cpu_budget";
    result["rejected_ratio"] = cpuMs / use.budgetMs;
    result["error"] = "the worker's processes used " + std::to_string(cpuMs) + " ms of CPU time over " +
                      std::to_string(timedCalls) + " timed calls of " + std::to_string(callsMs) + " ms (budget " +
                      std::to_string(use.budgetMs) +
                      " ms): the work must be done by the candidate's own kernels, not on the host";
  } else if (deviceMemory && tracedBusyMs >= 0 && gpuShare < request_.minGpuShare) {
    result["status"] = "rejected";
    result["rejected_by"] = "gpu_share"; // the judge may ask a second worker (JudgeMain)
    result["rejected_ratio"] = gpuShare / request_.minGpuShare;
    result["error"] = "the candidate's kernels kept the GPU busy " + std::to_string(100 * gpuShare) +
                      "% of its median call (minimum " + std::to_string(100 * request_.minGpuShare) +
                      "%): the work must be done by the candidate's own kernels";
  }
  return result;
}

void LibraryRun::drawInputs(const OracleCall &call, bool expectFromOracle) {
  const SecondsInto clock{steadySeconds(), phases_.draw};
  buffers_.drawInputs(call.sizes, call.stream, call.trial, call.secret);
  if (!expectFromOracle)
    return;
  try {
    if (oracleOnHost_)
      buffers_.runHostReference(oracle_, call.sizes);
    else
      buffers_.runOracle(oracle_, call.sizes);
  } catch (const TaskError &) {
    failedOracleCall_ = call;
    throw;
  }
}

bool oracleRunsAlone(TaskBuffers &buffers, EntryFunction oracle, bool oracleOnHost, const OracleCall &call) {
  try {
    buffers.drawInputs(call.sizes, call.stream, call.trial, call.secret);
    if (oracleOnHost)
      buffers.runHostReference(oracle, call.sizes);
    else
      buffers.runOracle(oracle, call.sizes);
    return true;
  } catch (const TaskError &) {
    return false;
  }
}

} // namespace cudaperf::judge
