// cudaperf-judge: the trusted half of an evaluation. It never loads candidate
// code. For each request on stdin (a JSON line, then the expected outputs of
// the correctness tests, computed by the trusted ReferenceOutputs) it takes a
// fresh sandboxed worker (started ahead, so its start-up is hidden behind the
// previous evaluation), shares the task's buffers with it, drives the calls,
// checks every output itself, times every call from its own side and
// answers one JSON line carrying the request's nonce. One worker per
// candidate: whatever a candidate leaves behind dies with its worker. The
// task's GPU baseline is loaded by the judge (it is the oracle of the timed
// calls) and timed in a worker of its own before any candidate of the task.
//
//   cudaperf-judge [--worker PATH] [--device cuda|none] [--hide PATH]... [--visible PATH]...
//                  [--insecure-no-isolation] [--channel FD] < requests
//
// With --channel the requests come from, and the answers go to, the socket
// FD: the daemon keeps such a judge across batches (JudgeSession) and sends
// one request at a time. A task's baseline timing is then reused for up to
// the request's baseline_max_age_seconds, across task switches too.
//
// Exit status: 0 at the end of stdin, 2 on a malformed request stream, 3
// after the judge's own GPU context failed (the caller starts a new judge).
#include "GpuContention.h"
#include "GpuTenants.h"
#include "JudgeMemory.h"
#include "LibraryRun.h"
#include "ProcessTree.h"
#include "SecondWorker.h"
#include "TaskBuffers.h"
#include "WorkerSession.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/CpuPlacement.h"
#include "cudaperf/daemon/EntryCall.h"
#include "cudaperf/daemon/InstalledPaths.h"
#include "cudaperf/daemon/TaskData.h"

#include <boost/json.hpp>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace json = boost::json;
using namespace cudaperf;
using namespace cudaperf::judge;

namespace {

// Workers started ahead of their evaluation.
constexpr std::size_t kSpareWorkers = 3;
// What an answer of a worker whose verdict gave way keeps of it: why it was
// doubted and what it measured.
json::object verdictDigest(const json::object &answer) {
  const json::value *status = answer.if_contains("status");
  json::object digest{{"status", status ? *status : json::value("none")}};
  if (const json::value *timing = answer.if_contains("timing"); timing && timing->is_object())
    for (const char *key : {"median_ms", "gap_shift_ms", "worker_times", "post_call_wait_median_ms"})
      if (const json::value *value = timing->as_object().if_contains(key))
        digest[key] = *value;
  for (const char *key : {"error", "rejected_by"})
    if (const json::value *value = answer.if_contains(key))
      digest[key] = *value;
  return digest;
}

// Fresh workers tried before an evaluation gets the machine's verdict (no_gpu).
constexpr int kWorkerAttempts = 3;
// What a worker's context needs at least, and how long the judge waits for it.
constexpr std::uint64_t kWorkerStartBytes = 1ull << 30;
constexpr double kMemoryWaitSeconds = 20;
// A busy-GPU rejection's control runs (GpuContention.h): both must find the
// GPU busy, this far apart, for the answer to be the machine's.
constexpr int kControlRuns = 2;
constexpr double kControlGapSeconds = 2.0;

struct Options {
  std::filesystem::path worker;
  bool cuda = true;
  bool insecure = false;
  std::vector<std::string> hidden, visible;
};

// A trusted library the judge loads itself: the GPU baseline, the C reference.
struct TrustedLibrary {
  void *handle = nullptr;
  EntryFunction entry = nullptr;
  std::string error;
  TrustedLibrary(const std::string &path, const std::string &symbol) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = std::string("cannot load ") + path + ": " + dlerror();
      return;
    }
    entry = reinterpret_cast<EntryFunction>(dlsym(handle, symbol.c_str()));
    if (!entry)
      error = "'" + symbol + "' is not exported by " + path;
  }
  // Never unloaded: CUDA registrations live with the process.
};

// An evaluation the machine cannot serve now (no worker starts): its
// verdict is the machine's, and nothing about the task is remembered.
struct MachineUnavailable : std::runtime_error {
  MachineUnavailable(std::string status, const std::string &why) : std::runtime_error(why), status(std::move(status)) {}
  std::string status;
};

struct Request {
  EvaluationRequest evaluation;
  std::string nonce, baseline, reference;
  double baselineMaxAgeSeconds = 300;
  // With expected_seed: the expected outputs may be left out (expected_bytes
  // 0); the judge answers needs_expected when the baseline's check needs them.
  bool expectedOnRequest = false;
};

class Judge {
public:
  explicit Judge(Options options) : options_(std::move(options)) {
    const double start = steadySeconds();
    struct StartupClock {
      double start, &into;
      ~StartupClock() { into = steadySeconds() - start; }
    } startupClock{start, startupSeconds_};
    // The first workers make their contexts while the judge makes its own.
    topUpSpares();
    host_ = makeHostMemory();
    if (options_.cuda) {
      holdCpuLatency();
      std::string problem;
      device_ = makeDeviceMemory(problem);
      if (device_)
        gpu_ = makeGpuControl(problem);
      if (!device_ || !gpu_) {
        device_.reset();
        gpu_.reset();
        deviceProblem_ = problem;
      } else {
        // Without the driver's library the control runs alone decide (tenantsProblem_ says why).
        tenants_ = GpuTenants::open(gpu_->deviceUuid(), tenantsProblem_);
      }
    } else {
      deviceProblem_ = "the judge runs without a GPU (--device none)";
    }
  }

  ~Judge() {
    if (cpuLatency_ >= 0)
      close(cpuLatency_);
  }

  bool broken() const { return broken_; }

  // A core's wake-up from a deep idle state (tens of microseconds, more in a
  // VM) is in every round trip the judge times: the worker's when it is
  // continued, the judge's own between calls. While this descriptor is open
  // the kernel keeps the cores out of states slower than 0 us to leave
  // (PM QoS), so that those wake-ups are short and alike from run to run.
  void holdCpuLatency() {
    cpuLatency_ = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    const std::int32_t microseconds = 0;
    if (cpuLatency_ >= 0 && write(cpuLatency_, &microseconds, sizeof microseconds) != sizeof microseconds) {
      close(cpuLatency_);
      cpuLatency_ = -1;
    }
  }

  json::object evaluate(Request &request) {
    // The memory waits reported with an answer are its own (an earlier evaluation that returned early
    // never reported its waits: they are dropped, not charged to this one).
    memoryWaitSeconds_ = 0;
    memoryWaitTimeouts_ = 0;
    EvaluationRequest &evaluation = request.evaluation;
    const TaskSpec &task = evaluation.task;
    const bool deviceMemory = task.memory == MemoryMode::Device;
    if (deviceMemory && !device_) {
      // Its GPU did not come up (a transient driver error, memory a killed
      // worker still held): a fresh judge may do better than this one.
      broken_ = options_.cuda;
      return {{"status", "no_gpu"}, {"error", deviceProblem_}};
    }
    Memory &memory = deviceMemory ? *device_ : *host_;
    try {
      const double setupStart = steadySeconds();
      TaskState &state = taskState(evaluation, memory, request);
      const double setupSeconds = steadySeconds() - setupStart;
      if (!state.problem.empty())
        return {{"status", "bad_task"}, {"error", state.problem}};
      // The GPU baseline's timing, in a worker of its own, before any candidate.
      const double baselineStart = steadySeconds();
      // With `expected_seed` the baseline is the candidate's correctness oracle too: checked against the
      // reference (its own evaluation) before any candidate, also when nothing is timed.
      const bool baselineWanted = !evaluation.skipTiming || evaluation.expectedSeed != 0;
      if (baselineWanted && state.baseline && state.baselineProblem.empty() &&
          !ensureBaselineTiming(state, evaluation, request.baselineMaxAgeSeconds)) {
        // Expected outputs sent only when asked: once per task in this judge's life (GBs for an elementwise
        // KernelBench problem). Nothing has run for this request; the caller sends it again with them.
        return {{"status", "needs_expected"},
                {"error", "the task's baseline is checked against the reference first: send the expected outputs "
                          "of expected_seed"}};
      }
      const double baselineSeconds = steadySeconds() - baselineStart;
      if (!state.baselineProblem.empty())
        return {{"status", "bad_task"}, {"error", state.baselineProblem}};
      EntryFunction oracle = state.baseline    ? state.baseline->entry
                             : state.reference ? state.reference->entry
                                               : nullptr;
      const bool oracleOnHost = !state.baseline && deviceMemory;
      const BaselineTiming *baselineTiming = state.baselineTiming ? &*state.baselineTiming : nullptr;
      // From a little before the candidate's worker (the driver samples every 1/6 s or so): a neighbour's
      // sample that straddles its start counts.
      const unsigned long long timedSinceUs = GpuTenants::nowMicros() - 200000ull;
      json::object answer =
          runInFreshWorker(evaluation, *state.buffers, oracle, oracleOnHost, Role::Candidate, baselineTiming);
      // Worker times not believed: a liar, or an honest worker whose round
      // trips all came back slower than the baseline worker's (on the H200 a
      // whole run's gaps 0.12-0.22 ms apart now and then, with nothing in
      // either worker's calibration calls to show it). A second fresh worker
      // tells them apart: a liar is rejected again, and since every call of
      // both runs is verified, behaving differently in the second gains nothing.
      bool secondWorker = false;
      if (deservesSecondWorker(answer)) {
        // The first worker gone before the second calibrates: its teardown
        // must not widen the second's bands.
        retiring_.clear();
        json::object again =
            runInFreshWorker(evaluation, *state.buffers, oracle, oracleOnHost, Role::Candidate, baselineTiming);
        secondWorker = true;
        if (secondReplacesFirst(answer, again)) {
          json::object retimed = verdictDigest(answer);
          answer = std::move(again);
          // With the answer's timing when it has one (gpu-test, the docs read it there).
          if (json::value *timing = answer.if_contains("timing"); timing && timing->is_object())
            timing->as_object()["first_worker_rejected"] = std::move(retimed);
          else
            answer["first_worker_rejected"] = std::move(retimed);
        } else {
          answer["second_worker_verdict"] = verdictDigest(again); // the first answer stands
        }
      }
      // A GPU found busy between the candidate's calls is its leftovers
      // unless the GPU is busy without it too: the control is the task's
      // baseline, timed by the same rule in a fresh worker once the
      // candidate's is reaped and the GPU's memory is back, twice, 2 s apart
      // (a dying worker's context could outlive one run, not the gap).
      // First the driver's account of who else computed on this GPU meanwhile (GpuTenants.h).
      if (deviceMemory && timedAnswer(answer))
        answer = verdictAfterTenants(std::move(answer),
                                     tenants_ ? tenants_->look(timedSinceUs, workerPids_)
                                              : json::object{{"available", false}, {"error", tenantsProblem_}});
      int gpuControls = 0;
      if (rejectedForBusyGpu(answer) && state.baseline) {
        EvaluationRequest control = evaluation;
        control.library = state.baselinePath;
        control.trials = 0; // its outputs were checked when it was first timed
        control.skipTiming = false;
        control.expected.clear();
        json::object controlAnswer;
        for (int run = 0; run < kControlRuns; ++run) {
          retiring_.clear();
          if (run > 0)
            std::this_thread::sleep_for(std::chrono::duration<double>(kControlGapSeconds));
          awaitGpuMemoryBack();
          controlAnswer = runInFreshWorker(control, *state.buffers, nullptr, false, Role::Baseline, nullptr);
          ++gpuControls;
          if (!controlFoundGpuBusy(controlAnswer))
            break;
        }
        answer = verdictAfterControl(std::move(answer), controlAnswer);
      }
      answer["replay"] = json::object{{"seed", evaluation.seed}};
      answer["machine"] =
          json::object{{"cpu_latency_qos", cpuLatency_ >= 0}, {"cpus", formatCpuList(currentThreadCpus())}};
      // The judge's own share of this answer: its start-up (the first answer
      // of a judge only), the task's buffers, the baseline's two workers.
      json::object &phases =
          answer["phases"].is_object() ? answer["phases"].as_object() : answer["phases"].emplace_object();
      phases["judge_startup_seconds"] = std::exchange(startupSeconds_, 0.0);
      phases["task_setup_seconds"] = setupSeconds;
      phases["baseline_seconds"] = baselineSeconds;
      phases["second_worker"] = secondWorker;
      phases["gpu_control_runs"] = gpuControls;
      phases["gpu_memory_wait_seconds"] = std::exchange(memoryWaitSeconds_, 0.0);
      if (memoryWaitTimeouts_ > 0) {
        phases["gpu_memory_wait_timeouts"] = std::exchange(memoryWaitTimeouts_, 0);
        phases["gpu_memory_wait_free_bytes"] = memoryWaitFreeBytes_;
        phases["gpu_memory_wait_rises"] = memoryWaitRises_;
      }
      return answer;
    } catch (const MachineUnavailable &unavailable) {
      return {{"status", unavailable.status}, {"error", unavailable.what()}};
    } catch (const TaskError &problem) {
      // The task's trusted side failed (its reference, as the oracle of a timed call).
      return {{"status", "bad_task"}, {"error", problem.what()}};
    } catch (const JudgeFailure &error) {
      // The judge's own GPU context failed; with a candidate loaded it is the
      // candidate's verdict (nothing else ran on this GPU but the judge and it).
      broken_ = deviceMemory;
      const bool candidateRan = candidateLoaded_;
      return {{"status", candidateRan ? "runtime_error" : "harness_error"},
              {"error", std::string(candidateRan ? "the GPU failed while the candidate ran: " : "the judge failed: ") +
                            error.what()}};
    }
  }

private:
  struct TaskState {
    std::string key;
    std::unique_ptr<TaskBuffers> buffers;
    std::unique_ptr<TrustedLibrary> baseline, reference;
    std::string baselinePath;
    std::optional<BaselineTiming> baselineTiming;
    std::string problem, baselineProblem;
  };

  TaskState &taskState(const EvaluationRequest &evaluation, Memory &memory, const Request &request) {
    const std::string key = evaluation.taskJson + '\n' + request.baseline + '\n' + request.reference + '\n' +
                            (memory.device() ? "device" : "host");
    if (state_ && state_->key == key)
      return *state_;
    state_.reset(); // one task's buffers at a time: benchmark inputs are hundreds of MB
    // The last task's killed workers reaped and their GPU memory back before
    // this task's buffers and trusted libraries take theirs: PyTorch eager
    // warms up (and its allocator keeps) what its calls need when it is
    // loaded, which a worker that filled the GPU must not make fail.
    if (!retiring_.empty()) {
      retiring_.clear();
      awaitGpuMemoryBack();
    }
    state_ = std::make_unique<TaskState>();
    state_->key = key;
    state_->buffers = std::make_unique<TaskBuffers>(evaluation.task, memory);
    state_->baselinePath = request.baseline;
    if (!request.baseline.empty()) {
      state_->baseline = std::make_unique<TrustedLibrary>(request.baseline, evaluation.task.entry);
      if (!state_->baseline->error.empty())
        state_->problem = "the GPU baseline: " + state_->baseline->error;
    }
    if (!request.reference.empty()) {
      state_->reference = std::make_unique<TrustedLibrary>(request.reference, evaluation.task.entry);
      if (!state_->reference->error.empty())
        state_->problem = "the reference: " + state_->reference->error;
    }
    return *state_;
  }

  // The task's baseline timing: the one made for this task (in this judge,
  // perhaps before a switch to another task) while it is younger than
  // `maxAge`, else timed now. The GPU's speed drifts little over minutes;
  // the timing costs two workers.
  // False, having done nothing, when the baseline must be checked against
  // the reference's expected outputs that this request left out
  // (expected_on_request).
  bool ensureBaselineTiming(TaskState &state, const EvaluationRequest &evaluation, double maxAge) {
    const double now = steadySeconds();
    auto cached = baselineTimings_.find(state.key);
    if (cached != baselineTimings_.end() && now - cached->second.timedAt <= maxAge) {
      state.baselineTiming = cached->second;
      return true;
    }
    if (evaluation.expectedSeed != 0 && evaluation.expected.empty() && evaluation.trials > 0 &&
        !checkedBaselines_.count(state.key))
      return false;
    state.baselineTiming.reset();
    // Timed again (after baseline_max_age) right after a candidate's worker:
    // that worker reaped and its GPU memory back first, so a candidate that
    // filled the GPU cannot make the baseline fail its own evaluation.
    if (!retiring_.empty()) {
      retiring_.clear();
      awaitGpuMemoryBack();
    }
    timeBaseline(state, evaluation);
    if (state.baselineTiming && state.baselineProblem.empty()) {
      state.baselineTiming->timedAt = now;
      baselineTimings_[state.key] = *state.baselineTiming;
    } else {
      baselineTimings_.erase(state.key);
    }
    return true;
  }

  void timeBaseline(TaskState &state, const EvaluationRequest &evaluation) {
    EvaluationRequest baseline = evaluation;
    baseline.library = state.baselinePath;
    const bool checkedBefore = evaluation.expectedSeed != 0 && checkedBaselines_.count(state.key) > 0;
    if (evaluation.expectedSeed != 0) {
      // The reference's expected outputs are of this seed: the baseline is checked on its inputs, and timed;
      // once checked in this judge, timed again (baseline_max_age) without the check.
      baseline.seed = evaluation.expectedSeed;
      baseline.skipTiming = false;
      if (checkedBefore)
        baseline.trials = 0;
    }
    json::object answer =
        runInFreshWorker(baseline, *state.buffers, nullptr, false, Role::Baseline, nullptr, &state.baselineTiming);
    const std::string status(answer.at("status").as_string());
    if (status == "no_gpu" || status == "harness_error") {
      // Its workers did not start (the machine's, or a candidate's leftovers
      // starved them): this evaluation cannot be timed, the next one tries again.
      state.baselineTiming.reset();
      throw MachineUnavailable(status, "the task's GPU baseline could not be timed: " +
                                           std::string(answer.contains("error") ? answer.at("error").as_string()
                                                                                : json::string("no worker")));
    }
    if (status != "ok") {
      // What the baseline's worker printed comes first: an eager baseline that could not run (out of GPU
      // memory at KernelBench's sizes, say) says why there, and poisons its outputs (a wrong_answer here).
      std::string said;
      if (const json::value *sandbox = answer.if_contains("sandbox"); sandbox && sandbox->is_object())
        if (const json::value *tail = sandbox->as_object().if_contains("stderr_tail");
            tail && tail->is_string() && !tail->as_string().empty())
          said = "its worker's stderr ends: " + std::string(tail->as_string()) + "; ";
      state.baselineProblem =
          "the task's GPU baseline failed its own evaluation (" + status + "): " + said + json::serialize(answer);
      return;
    }
    if (evaluation.expectedSeed != 0 && !checkedBefore)
      checkedBaselines_.insert(state.key); // it agreed with the reference: the oracle of correctness tests too
    // Its timed calls once more in a second fresh worker (its correctness is
    // known by now): a baseline worker whose round trips were slow all run
    // long would let every candidate's event times be that much too short
    // (on the H200 one was 0.22 ms slower than all ten candidates' workers).
    // The speedup's denominator stays the first run's.
    EvaluationRequest timingOnly = baseline;
    timingOnly.trials = 0;
    std::optional<BaselineTiming> second;
    json::object again = runInFreshWorker(timingOnly, *state.buffers, nullptr, false, Role::Baseline, nullptr, &second);
    if (again.at("status") != "ok" || !state.baselineTiming || !second)
      return; // the first run's references stand
    BaselineTiming &kept = *state.baselineTiming;
    // The speedup's denominator: the faster of the two runs (a run slowed by
    // what the last worker left behind must not flatter every candidate).
    if (second->medianMs > 0 && second->medianMs < kept.medianMs) {
      kept.medianMs = second->medianMs;
      kept.samples = second->samples;
      kept.cv = second->cv;
    }
    kept.gaps = tighterGaps(kept.gaps, second->gaps);
    kept.postProbe = tighterProbeReference(kept.postProbe, second->postProbe);
    kept.workerGapMediansMs.insert(kept.workerGapMediansMs.end(), second->workerGapMediansMs.begin(),
                                   second->workerGapMediansMs.end());
  }

  // The worker's sandbox: nobody, own PID, network and mount namespaces, the
  // task folders hidden, a private tmpfs; the CUDA driver needs many device
  // files and threads (RLIMIT_NPROC counts every process of nobody).
  WorkerOptions workerOptions() const {
    WorkerOptions options;
    options.program = options_.worker;
    options.cuda = options_.cuda;
    sandbox::Limits &limits = options.limits;
    limits.fileSizeBytes = 64ull << 20;
    limits.openFiles = 1024;
    // RLIMIT_NPROC counts every process and thread of nobody, the compiles'
    // too: a worker may not starve them (they allow 4096).
    limits.processes = 1024;
    // The judge's GPU is the worker's: the same CUDA_VISIBLE_DEVICES.
    if (const char *devices = std::getenv("CUDA_VISIBLE_DEVICES"))
      options.environment.emplace_back("CUDA_VISIBLE_DEVICES", devices);
    limits.outputBytes = 1 << 20;
    limits.privateTmpBytes = 64ull << 20;
    options.limits.hiddenPaths = options_.hidden;
    options.limits.visiblePaths = options_.visible;
    options.limits.requireIsolation = !options_.insecure;
    // The judge keeps the clock: the sandbox's own deadline only backs it up.
    options.limits.wallSeconds = 3600;
    options.limits.cpuSeconds = 3600;
    return options;
  }

  // The oldest spare started earlier, or a new one; and the spares topped up,
  // so that the next evaluations find their workers' start-up done.
  std::unique_ptr<WorkerSession> takeWorker(std::string &error) {
    std::unique_ptr<WorkerSession> worker;
    if (!spares_.empty()) {
      worker = std::move(spares_.front());
      spares_.pop_front();
    } else {
      worker = WorkerSession::start(workerOptions(), error);
    }
    topUpSpares();
    return worker;
  }

  // A killed worker's device memory comes back after its process is reaped
  // (the driver may finish closing its files on a thread of its own): on the
  // H200 a worker started right after one that held all 140 GB failed with
  // out of memory. Waits until the free memory is at least kWorkerStartBytes
  // and has stopped rising, or kMemoryWaitSeconds passed.
  // The wait is reported with the answer that waited (phases gpu_memory_wait_*): a reward step that
  // stalls names it, with the free memory seen last and how often it rose.
  void awaitGpuMemoryBack() {
    if (!gpu_)
      return;
    const double start = steadySeconds();
    const MemoryWait wait = waitForGpuMemory(start + kMemoryWaitSeconds);
    memoryWaitSeconds_ += steadySeconds() - start;
    if (wait.timedOut) {
      ++memoryWaitTimeouts_;
      memoryWaitFreeBytes_ = static_cast<double>(wait.lastFree);
      memoryWaitRises_ = wait.rises;
    }
  }

  struct MemoryWait {
    bool timedOut = false;
    std::uint64_t lastFree = 0;
    int rises = 0; // polls that saw more free memory than the one before
  };

  MemoryWait waitForGpuMemory(double deadline) const {
    MemoryWait wait;
    int steady = 0;
    try {
      while (steadySeconds() < deadline) {
        const std::uint64_t free = gpu_->freeBytes();
        if (wait.lastFree != 0 && free > wait.lastFree)
          ++wait.rises;
        steady = free >= kWorkerStartBytes && free <= wait.lastFree ? steady + 1 : 0;
        if (steady >= 3)
          return wait;
        wait.lastFree = free;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      wait.timedOut = true;
    } catch (const JudgeFailure &) {
      // The judge's own context failed: the next worker's start will say so.
    }
    return wait;
  }

  void topUpSpares() {
    while (spares_.size() < kSpareWorkers) {
      std::string ignored;
      auto spare = WorkerSession::start(workerOptions(), ignored);
      if (!spare)
        break;
      spares_.push_back(std::move(spare));
    }
  }

  json::object runInFreshWorker(const EvaluationRequest &evaluation, TaskBuffers &buffers, EntryFunction oracle,
                                bool oracleOnHost, Role role, const BaselineTiming *gpuBaseline,
                                std::optional<BaselineTiming> *timingOut = nullptr) {
    json::object answer;
    bool starvedBefore = false; // the oracle failed beside this candidate's first worker, and alone computed
    // A worker that fails before the library is loaded is the machine's
    // fault: more fresh workers, then the machine's verdict.
    for (int attempt = 0; attempt < kWorkerAttempts; ++attempt) {
      std::string error;
      std::unique_ptr<WorkerSession> worker = takeWorker(error);
      if (!worker)
        return {{"status", "harness_error"}, {"error", "cannot start a worker: " + error}};
      const double takenAt = steadySeconds();
      if (!worker->awaitReady(takenAt + 120)) {
        answer = {{"status", options_.cuda ? "no_gpu" : "harness_error"},
                  {"error", "the worker did not start: " + worker->message()},
                  {"sandbox", worker->account()}};
        // It (and the other spares) may have started while an earlier
        // candidate held the GPU's memory: the next attempt is a worker
        // started after every earlier one is gone and its memory is back.
        retiring_.clear();
        spares_.clear();
        awaitGpuMemoryBack();
        continue;
      }
      // Its processes stay the judge's own in the driver's account (GpuTenants.h) after it is killed,
      // when its sandbox init has left the judge's tree but its context may not be gone yet. A worker
      // cannot fork: its tree is complete once it is ready.
      // Those gone since are forgotten: a reused number may be a neighbour's now.
      std::erase_if(workerPids_, [](pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; });
      for (pid_t pid : processTree(worker->treeRoot()))
        workerPids_.insert(pid);
      // The worker's GPU must be the judge's (the probe sees only its own GPU).
      if (gpu_ && evaluation.task.memory == MemoryMode::Device && worker->readyText() != gpu_->deviceUuid()) {
        answer = {
            {"status", "harness_error"},
            {"error", "the worker's GPU (" + worker->readyText() + ") is not the judge's (" + gpu_->deviceUuid() + ")"},
            {"sandbox", worker->account()}};
        continue;
      }
      LibraryRun run(evaluation, buffers, *worker, evaluation.task.memory == MemoryMode::Device ? gpu_.get() : nullptr,
                     oracle, oracleOnHost, role);
      run.setGpuBaseline(gpuBaseline);
      run.setBeforeBuffers([this] { retiring_.clear(); }); // reaps the killed workers of earlier evaluations
      // A spare still making its CUDA context is stopped meanwhile (its start
      // goes on outside the timed calls), or, with pause_starting_workers
      // off, waited for.
      run.setBeforeTimedCalls([this, pause = evaluation.pauseStartingWorkers] {
        for (auto &spare : spares_)
          if (pause)
            spare->pauseIfStarting();
          else
            spare->awaitReady(steadySeconds() + 30, false);
      });
      run.setAfterTimedCalls([this] {
        for (auto &spare : spares_)
          spare->resumeStart();
      });
      // How long this evaluation waited for its worker's start (hidden when a spare was ready).
      const double waited = steadySeconds() - takenAt;
      const double runStart = steadySeconds();
      candidateLoaded_ = false;
      try {
        answer = run.run();
      } catch (const TaskError &problem) {
        // The trusted oracle failed with the candidate's library loaded: a
        // worker that holds the GPU's memory starves PyTorch eager, and a
        // wrong candidate would trade its verdict for an unscored bad_task.
        // Its worker gone and its memory back, the oracle makes the same
        // call again alone: if it fails, the task's; if not, the candidate
        // runs once more in a fresh worker, and a second such failure is its own.
        if (role != Role::Candidate || !oracle || !run.loaded() || !run.failedOracleCall())
          throw;
        const OracleCall failed = *run.failedOracleCall();
        worker.reset();
        awaitGpuMemoryBack();
        candidateLoaded_ = true; // a GPU failure in the oracle's retry follows the candidate's run
        if (!oracleRunsAlone(buffers, oracle, oracleOnHost, failed))
          throw;
        candidateLoaded_ = false;
        if (!starvedBefore) {
          starvedBefore = true;
          answer = {{"status", "harness_error"}, {"error", "no worker ran the candidate again"}};
          --attempt; // not the machine's failure: the fresh worker is the candidate's second chance
          continue;
        }
        return {{"status", "rejected"},
                {"rejected_by", "oracle_starved"},
                {"error", std::string("twice the task's trusted oracle failed while this candidate's worker was "
                                      "alive (") +
                              problem.what() + ") and computed the same call once the worker was gone"}};
      } catch (const JudgeFailure &) {
        // The judge's own context failed: the candidate's doing once its
        // library is loaded (nothing else ran on this GPU), else the machine's.
        candidateLoaded_ = role == Role::Candidate && run.loaded();
        throw;
      }
      const LibraryRun::CallPhases &calls = run.callPhases();
      answer["phases"] = json::object{{"trusted_start_seconds", run.trustedStartSeconds()},
                                      {"load_seconds", run.loadSeconds()},
                                      {"worker_run_seconds", steadySeconds() - runStart},
                                      {"calibration_seconds", calls.calibration},
                                      {"calls", calls.calls},
                                      {"call_draw_seconds", calls.draw},
                                      {"call_prepare_seconds", calls.prepare},
                                      {"call_round_trip_seconds", calls.roundTrip},
                                      {"call_verify_seconds", calls.verify},
                                      {"call_stop_and_reply_seconds", calls.stopAndReply},
                                      {"call_cpu_read_seconds", calls.cpuReads},
                                      {"reap_seconds", calls.reap},
                                      {"before_timed_calls_seconds", calls.beforeTimed}};
      if (worker->faulted() || !run.loaded()) {
        answer["sandbox"] = worker->account(); // gone: how it ended is part of the verdict
      } else {
        // Done with it: killed now, its teardown overlaps the next worker's
        // trusted start, and it is reaped before the buffers are mapped again.
        answer["sandbox"] = worker->account(false);
        worker->retire();
        retiring_.push_back(std::move(worker));
      }
      answer["sandbox"].as_object()["start_wait_seconds"] = waited;
      if (timingOut)
        *timingOut = run.baselineTiming();
      if (!run.retryable())
        return answer;
    }
    return answer;
  }

  Options options_;
  std::unique_ptr<Memory> host_, device_;
  std::unique_ptr<GpuControl> gpu_;
  std::string deviceProblem_;
  std::unique_ptr<GpuTenants> tenants_; // null without NVML: tenantsProblem_ says why
  std::string tenantsProblem_;
  std::set<pid_t> workerPids_; // every process of every worker this judge ran (GpuTenants' look)
  std::unique_ptr<TaskState> state_;
  std::map<std::string, BaselineTiming> baselineTimings_; // by task key
  std::set<std::string> checkedBaselines_;                // task keys whose baseline passed the reference's check here
  std::deque<std::unique_ptr<WorkerSession>> spares_;
  int cpuLatency_ = -1; // /dev/cpu_dma_latency, held open (holdCpuLatency)
  std::vector<std::unique_ptr<WorkerSession>> retiring_;
  bool broken_ = false, candidateLoaded_ = false;
  double startupSeconds_ = 0; // the constructor's: reported with the first answer
  // awaitGpuMemoryBack's time since the last answer, and its waits that ran out (the last one's view).
  double memoryWaitSeconds_ = 0;
  int memoryWaitTimeouts_ = 0;
  double memoryWaitFreeBytes_ = 0;
  int memoryWaitRises_ = 0;
};

struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Request requestFromJson(const json::object &object) {
  auto text = [&](const char *key, bool required) -> std::string {
    if (const auto *value = object.if_contains(key); value && value->is_string())
      return std::string(value->get_string());
    if (required)
      throw BadRequest(std::string("request field '") + key + "' missing or not a string");
    return "";
  };
  auto integer = [&](const char *key, std::int64_t fallback) -> std::int64_t {
    if (const auto *value = object.if_contains(key)) {
      if (value->is_uint64())
        return static_cast<std::int64_t>(value->get_uint64());
      if (!value->is_int64())
        throw BadRequest(std::string("request field '") + key + "' is not an integer");
      return value->get_int64();
    }
    return fallback;
  };
  auto real = [&](const char *key, double fallback) -> double {
    if (const auto *value = object.if_contains(key)) {
      if (!value->is_number())
        throw BadRequest(std::string("request field '") + key + "' is not a number");
      return value->to_number<double>();
    }
    return fallback;
  };
  Request request;
  EvaluationRequest &e = request.evaluation;
  e.taskJson = text("task_json", true);
  e.task = parseTask(e.taskJson, text("task_name", true));
  e.library = text("candidate", true);
  request.baseline = text("baseline", false);
  request.reference = text("reference", false);
  request.nonce = text("nonce", false);
  if (const auto *seed = object.if_contains("seed"); seed && seed->is_uint64())
    e.seed = seed->get_uint64();
  else
    e.seed = static_cast<std::uint64_t>(integer("seed", 1));
  e.trials = static_cast<int>(std::clamp<std::int64_t>(integer("trials", 2), 1, 100));
  e.warmup = static_cast<int>(std::clamp<std::int64_t>(integer("warmup", 3), 0, 100));
  e.runs = static_cast<int>(std::clamp<std::int64_t>(integer("runs", 30), 1, 1000));
  e.minRuns = static_cast<int>(std::clamp<std::int64_t>(integer("min_runs", e.runs), 1, e.runs));
  e.medianHalfWidth = std::clamp(real("median_half_width", 0.005), 0.0, 100.0);
  e.cpuBaselineMs = real("cpu_baseline_ms", -1);
  e.minGpuShare = real("min_gpu_share", 0.05);
  e.wallSeconds = std::clamp(real("wall_seconds", 120), 1.0, 3600.0);
  if (const auto *pause = object.if_contains("pause_starting_workers"); pause && pause->is_bool())
    e.pauseStartingWorkers = pause->get_bool();
  request.baselineMaxAgeSeconds = std::max(0.0, real("baseline_max_age_seconds", 300));
  if (const auto *skip = object.if_contains("skip_timing"); skip && skip->is_bool())
    e.skipTiming = skip->get_bool();
  if (const auto *seed = object.if_contains("expected_seed"); seed && seed->is_uint64())
    e.expectedSeed = seed->get_uint64();
  else
    e.expectedSeed = static_cast<std::uint64_t>(integer("expected_seed", 0));
  if (const auto *lazy = object.if_contains("expected_on_request"); lazy && lazy->is_bool())
    request.expectedOnRequest = lazy->get_bool();
  if (request.expectedOnRequest && e.expectedSeed == 0)
    throw BadRequest("request field 'expected_on_request' needs an 'expected_seed'");
  if (e.expectedSeed != 0 && request.baseline.empty())
    throw BadRequest("request field 'expected_seed' needs a 'baseline': the candidate's expected outputs come from it");
  if (e.task.args.size() > kMaxEntryArguments)
    throw BadRequest("the task has more than " + std::to_string(kMaxEntryArguments) + " arguments");
  return request;
}

void writeAnswer(std::FILE *out, json::object answer, const std::string &nonce) {
  answer["nonce"] = nonce;
  const std::string line = json::serialize(answer) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  options.worker = cudaperf::companionProgram("cudaperf-worker");
  int channel = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--worker")
      options.worker = value();
    else if (arg == "--device")
      options.cuda = value() != "none";
    else if (arg == "--hide")
      options.hidden.push_back(value());
    else if (arg == "--visible")
      options.visible.push_back(value());
    else if (arg == "--insecure-no-isolation")
      options.insecure = true;
    else if (arg == "--channel")
      channel = std::atoi(value().c_str());
    else {
      std::cerr << "usage: cudaperf-judge [--worker PATH] [--device cuda|none] [--hide PATH]... [--visible PATH]...\n"
                   "                      [--insecure-no-isolation] [--channel FD] < requests (docs/tasks.md)\n";
      return 2;
    }
  }
  options.visible.push_back(std::filesystem::weakly_canonical(options.worker).parent_path().string());
  // Answers go to the stdout we started with (or the channel, which also
  // brings the requests); anything else printed goes to stderr.
  std::FILE *answers = fdopen(dup(channel >= 0 ? channel : STDOUT_FILENO), "w");
  if (channel >= 0) {
    dup2(channel, STDIN_FILENO);
    close(channel);
  }
  dup2(STDERR_FILENO, STDOUT_FILENO);
  Judge judge(options);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    boost::system::error_code error;
    const json::value parsed = json::parse(line, error);
    if (error || !parsed.is_object()) {
      writeAnswer(answers, {{"status", "bad_request"}, {"error", "not a JSON object"}}, "");
      return 2;
    }
    const json::object &object = parsed.get_object();
    const auto *bytes = object.if_contains("expected_bytes");
    if (!bytes || !bytes->is_int64() || bytes->get_int64() < 0) {
      writeAnswer(answers,
                  {{"status", "bad_request"}, {"error", "request field 'expected_bytes' missing or not an integer"}},
                  "");
      return 2;
    }
    std::string expected(static_cast<std::size_t>(bytes->get_int64()), '\0');
    if (!std::cin.read(expected.data(), static_cast<std::streamsize>(expected.size()))) {
      writeAnswer(answers, {{"status", "bad_request"}, {"error", "stdin ended inside the expected outputs"}}, "");
      return 2;
    }
    const std::string nonce =
        object.contains("nonce") && object.at("nonce").is_string() ? std::string(object.at("nonce").as_string()) : "";
    Request request;
    try {
      request = requestFromJson(object);
    } catch (const TaskError &problem) {
      writeAnswer(answers, {{"status", "bad_task"}, {"error", problem.what()}}, nonce);
      continue;
    } catch (const std::exception &problem) {
      writeAnswer(answers, {{"status", "bad_request"}, {"error", problem.what()}}, nonce);
      continue;
    }
    const std::size_t wanted =
        expectedBlobBytes(request.evaluation.task, static_cast<std::size_t>(request.evaluation.trials));
    if (expected.size() != wanted && !(request.expectedOnRequest && expected.empty())) {
      writeAnswer(
          answers,
          {{"status", "bad_request"},
           {"error", "expected outputs: " + std::to_string(expected.size()) + " bytes, not " + std::to_string(wanted)}},
          nonce);
      continue;
    }
    request.evaluation.expected = std::move(expected);
    json::object answer = judge.evaluate(request);
    // Said in the answer, so that whoever keeps this judge sends it nothing more.
    if (judge.broken())
      answer["judge_exits"] = true;
    writeAnswer(answers, std::move(answer), nonce);
    if (judge.broken())
      return 3;
  }
  return 0;
}
