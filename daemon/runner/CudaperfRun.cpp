// cudaperf-run: the GPU harness. Evaluates compiled candidates of a task in
// its own process (a bad kernel poisons the CUDA context; the daemon must not
// share it), normally inside the sandbox (HarnessRun), as an unprivileged
// user that cannot see the task's folder or the reference cache.
//
// Requests come on stdin, one after the other, each a JSON line followed by
// `expected_bytes` raw bytes: the expected outputs of every correctness test,
// computed by the trusted side (ReferenceOutputs) — the harness never loads
// the reference. For each request: correctness on fresh seeded inputs at
// every correctness size and trial (the trial picks the input distribution),
// CUPTI kernel records, then timing at the benchmark size. One JSON answer
// per request, carrying the request's nonce, on the stdout the process
// started with; the candidate's own stdout goes to stderr.
//
// Exit status: 0 at the end of stdin, 2 on a malformed request stream, 3
// after a CUDA error (the context is unusable: the parent starts a new worker).
#include "KernelTrace.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/EntryCall.h"
#include "cudaperf/daemon/TaskData.h"

#include <boost/json.hpp>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

namespace json = boost::json;
using namespace cudaperf;

namespace {

constexpr std::size_t kGuardBytes = 4096; // canary region on each side of every buffer
constexpr unsigned char kCanary = 0xA5;
constexpr std::size_t kL2FlushBytes = 256u << 20; // larger than any L2 (H200: 60 MB)

struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct NoGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw CudaFailure(std::string(what) + ": " + cudaGetErrorString(status));
}

struct Library {
  void *handle = nullptr;
  EntryFunction entry = nullptr;
  Library(const std::string &path, const std::string &symbol) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw Rejected(std::string("cannot load ") + path + ": " + dlerror());
    entry = reinterpret_cast<EntryFunction>(dlsym(handle, symbol.c_str()));
    if (!entry)
      throw Rejected("'" + symbol + "' is not exported by " + path + " (declare it extern \"C\")");
  }
  Library(const Library &) = delete;
  ~Library() {
    // Candidates are not unloaded: their CUDA registrations live with the process.
  }
};

// A buffer with canary regions on both sides, on the device or the host.
class GuardedBuffer {
public:
  GuardedBuffer(std::size_t bytes, bool device) : bytes_(bytes), device_(device) {
    const std::size_t total = bytes + 2 * kGuardBytes;
    if (device_) {
      check(cudaMalloc(&base_, total), "cudaMalloc");
      check(cudaMemset(base_, kCanary, total), "cudaMemset");
    } else {
      base_ = std::malloc(total);
      if (!base_)
        throw std::bad_alloc();
      std::memset(base_, kCanary, total);
    }
  }
  GuardedBuffer(const GuardedBuffer &) = delete;
  ~GuardedBuffer() {
    if (device_)
      cudaFree(base_);
    else
      std::free(base_);
  }
  void *data() const { return static_cast<unsigned char *>(base_) + kGuardBytes; }
  void upload(const std::vector<unsigned char> &host) {
    if (device_)
      check(cudaMemcpy(data(), host.data(), bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device");
    else
      std::memcpy(data(), host.data(), bytes_);
  }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> host(bytes_);
    if (device_)
      check(cudaMemcpy(host.data(), data(), bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    else
      std::memcpy(host.data(), data(), bytes_);
    return host;
  }
  // A fresh buffer with the same contents (device to device: no host upload).
  void copyFrom(const GuardedBuffer &source) {
    if (device_)
      check(cudaMemcpy(data(), source.data(), bytes_, cudaMemcpyDeviceToDevice), "cudaMemcpy device to device");
    else
      std::memcpy(data(), source.data(), bytes_);
  }
  bool canariesIntact() const {
    std::vector<unsigned char> guard(kGuardBytes);
    for (const unsigned char *at :
         {static_cast<const unsigned char *>(base_), static_cast<const unsigned char *>(data()) + bytes_}) {
      if (device_)
        check(cudaMemcpy(guard.data(), at, kGuardBytes, cudaMemcpyDeviceToHost), "cudaMemcpy guard");
      else
        std::memcpy(guard.data(), at, kGuardBytes);
      if (std::any_of(guard.begin(), guard.end(), [](unsigned char b) { return b != kCanary; }))
        return false;
    }
    return true;
  }

private:
  void *base_ = nullptr;
  std::size_t bytes_;
  bool device_;
};

struct Placed {
  std::vector<std::unique_ptr<GuardedBuffer>> buffers; // one per argument, null for scalars
  std::vector<std::intptr_t> registers;
};

Placed place(const std::vector<ArgumentData> &arguments, bool device) {
  Placed placed;
  for (const auto &argument : arguments) {
    if (!argument.pointer) {
      placed.buffers.emplace_back();
      placed.registers.push_back(static_cast<std::intptr_t>(argument.scalar));
      continue;
    }
    auto buffer = std::make_unique<GuardedBuffer>(argument.buffer.sizeInBytes(), device);
    buffer->upload(argument.buffer.bytes);
    placed.registers.push_back(reinterpret_cast<std::intptr_t>(buffer->data()));
    placed.buffers.push_back(std::move(buffer));
  }
  return placed;
}

// Fresh buffers holding what `pristine` holds.
Placed clone(const Placed &pristine, const std::vector<ArgumentData> &arguments, bool device) {
  Placed placed;
  for (std::size_t a = 0; a < arguments.size(); ++a) {
    if (!arguments[a].pointer) {
      placed.buffers.emplace_back();
      placed.registers.push_back(pristine.registers[a]);
      continue;
    }
    auto buffer = std::make_unique<GuardedBuffer>(arguments[a].buffer.sizeInBytes(), device);
    buffer->copyFrom(*pristine.buffers[a]);
    placed.registers.push_back(reinterpret_cast<std::intptr_t>(buffer->data()));
    placed.buffers.push_back(std::move(buffer));
  }
  return placed;
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double coefficientOfVariation(const std::vector<double> &values) {
  if (values.size() < 2)
    return 0;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  double squares = 0;
  for (double v : values)
    squares += (v - mean) * (v - mean);
  return mean > 0 ? std::sqrt(squares / (values.size() - 1)) / mean : 0;
}

json::array toJson(const std::vector<double> &values) {
  json::array array;
  for (double v : values)
    array.push_back(v);
  return array;
}

struct Settings {
  std::string taskJson, taskName, candidate, baseline, nonce;
  std::uint64_t seed = 1;
  int trials = 3, warmup = 10, runs = 30;
  bool skipTiming = false;
  std::string expected;      // expected outputs of every test (see ReferenceOutputs)
  double cpuBaselineMs = -1; // measured by the trusted side; -1: none
  double minGpuShare = 0.05; // device mode: kernels must keep the GPU busy this share of the call
};

struct TimingStats {
  std::vector<double> deviceSyncMs, eventsOnlyMs, wallMs;
};

// Times one library at the benchmark size: fresh device buffers for every run
// (the three most recent stay allocated, so addresses are not recycled), L2
// flushed before each run, CUDA events around the call with a device-wide
// synchronisation before the end event (work left on other streams counts).
TimingStats timeLibrary(const TaskSpec &task, EntryFunction entry, const std::vector<ArgumentData> &inputs, int warmup,
                        int runs, void *flush) {
  TimingStats stats;
  cudaEvent_t start, stopEventsOnly, stopSynced;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stopEventsOnly), "cudaEventCreate");
  check(cudaEventCreate(&stopSynced), "cudaEventCreate");
  const bool device = task.memory == MemoryMode::Device;
  const Placed pristine = place(inputs, device); // uploaded once; every run copies it on the device
  std::deque<Placed> recent;
  for (int run = 0; run < warmup + runs; ++run) {
    recent.push_back(clone(pristine, inputs, device));
    if (recent.size() > 3)
      recent.pop_front();
    check(cudaMemsetAsync(flush, run & 0xff, kL2FlushBytes), "L2 flush");
    check(cudaDeviceSynchronize(), "synchronize before run");
    const auto wallStart = std::chrono::steady_clock::now();
    check(cudaEventRecord(start), "cudaEventRecord");
    callEntry(entry, recent.back().registers);
    check(cudaEventRecord(stopEventsOnly), "cudaEventRecord");
    check(cudaDeviceSynchronize(), "candidate run");
    check(cudaEventRecord(stopSynced), "cudaEventRecord");
    check(cudaEventSynchronize(stopSynced), "cudaEventSynchronize");
    const auto wallEnd = std::chrono::steady_clock::now();
    check(cudaGetLastError(), "candidate launch");
    if (run < warmup)
      continue;
    float synced = 0, eventsOnly = 0;
    check(cudaEventElapsedTime(&synced, start, stopSynced), "cudaEventElapsedTime");
    check(cudaEventElapsedTime(&eventsOnly, start, stopEventsOnly), "cudaEventElapsedTime");
    stats.deviceSyncMs.push_back(synced);
    stats.eventsOnlyMs.push_back(eventsOnly);
    stats.wallMs.push_back(std::chrono::duration<double, std::milli>(wallEnd - wallStart).count());
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stopEventsOnly);
  cudaEventDestroy(stopSynced);
  return stats;
}

json::object statsToJson(const TimingStats &stats) {
  return {{"median_ms", median(stats.deviceSyncMs)},
          {"cv", coefficientOfVariation(stats.deviceSyncMs)},
          {"events_only_median_ms", median(stats.eventsOnlyMs)},
          {"wall_median_ms", median(stats.wallMs)},
          {"samples", toJson(stats.deviceSyncMs)}};
}

// What timing needs besides the candidate depends only on the task and the
// seed: the benchmark inputs and the GPU baseline's timing. A warm worker
// evaluates many candidates of one task, so it makes these once per process
// (the two most recent are kept: benchmark inputs are hundreds of MB).
struct BenchmarkSetup {
  std::vector<ArgumentData> inputs;
  std::map<std::string, TimingStats> gpuBaselines; // by baseline library
};

std::shared_ptr<BenchmarkSetup> benchmarkSetup(const Settings &settings, const TaskSpec &task) {
  static std::deque<std::pair<std::string, std::shared_ptr<BenchmarkSetup>>> cache;
  const std::string key = settings.taskJson + "\n" + std::to_string(settings.seed);
  for (const auto &[cachedKey, setup] : cache)
    if (cachedKey == key)
      return setup;
  auto setup = std::make_shared<BenchmarkSetup>();
  setup->inputs = generateArguments(task, task.benchmarkSize, benchmarkSeed(settings.seed));
  cache.emplace_back(key, setup);
  if (cache.size() > 2)
    cache.pop_front();
  return setup;
}

KernelTrace &kernelTrace() {
  static KernelTrace trace;
  return trace;
}

json::object activityToJson(const KernelActivity &activity, double callMs) {
  return {{"kernels", activity.kernels},
          {"kernel_ms", activity.kernelMs},
          {"gpu_busy_ms", activity.busyMs},
          {"call_wall_ms", callMs}, // host wall time, CUPTI's launch overhead included
          {"first_kernel", activity.firstKernel}};
}

json::object evaluate(const Settings &settings) {
  const auto began = std::chrono::steady_clock::now();
  json::object result;
  const TaskSpec task = parseTask(settings.taskJson, settings.taskName);
  if (task.args.size() > kMaxEntryArguments)
    throw Rejected("more than 12 arguments");
  // Loaded before anything else: what its constructors do is the candidate's
  // verdict on any machine, with or without a GPU.
  Library candidate(settings.candidate, task.entry);
  int devices = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&devices); status != cudaSuccess || devices == 0)
    throw NoGpu(status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device");
  // The expected outputs, test by test, in the order ReferenceOutputs wrote them.
  const std::size_t expectedBytes = expectedBlobBytes(task, static_cast<std::size_t>(settings.trials));
  if (settings.expected.size() != expectedBytes)
    throw std::invalid_argument("expected outputs: " + std::to_string(settings.expected.size()) + " bytes, not " +
                                std::to_string(expectedBytes));
  const bool device = task.memory == MemoryMode::Device;
  KernelTrace &trace = kernelTrace();

  // Correctness: every size, `trials` fresh seeds each, the trial picking the input distribution.
  json::array failures;
  int passed = 0, total = 0;
  double maxAbsError = 0;
  std::size_t expectedOffset = 0;
  std::size_t largestSize = 0;
  for (std::size_t s = 1; s < task.correctnessSizes.size(); ++s)
    if (expectedOutputBytes(task, s) > expectedOutputBytes(task, largestSize))
      largestSize = s;
  json::array largestActivity;
  std::string noKernels;
  const auto correctnessStart = std::chrono::steady_clock::now();
  for (int trial = 0; trial < settings.trials; ++trial) {
    for (std::size_t s = 0; s < task.correctnessSizes.size(); ++s) {
      ++total;
      const auto inputs = generateArguments(task, task.correctnessSizes[s], testSeed(settings.seed, trial, s), trial);
      Placed placed = place(inputs, device);
      const bool traced = s == largestSize;
      if (traced)
        trace.start();
      const auto callStart = std::chrono::steady_clock::now();
      callEntry(candidate.entry, placed.registers);
      check(cudaDeviceSynchronize(), "candidate run");
      const double callMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - callStart).count();
      if (traced) {
        const KernelActivity activity = trace.stop();
        largestActivity.push_back(activityToJson(activity, callMs));
        if (trace.available() && activity.kernels == 0)
          noKernels = "no kernel ran on the GPU during the call at the largest correctness size (trial " +
                      std::to_string(trial) + "): the candidate must compute with its own kernels";
      }
      check(cudaGetLastError(), "candidate launch");

      std::string why;
      json::object failure;
      for (std::size_t a = 0; a < task.args.size(); ++a) {
        const ArgumentSpec &spec = task.args[a];
        if (!spec.pointer)
          continue;
        const bool intact = placed.buffers[a]->canariesIntact();
        HostBuffer actual = inputs[a].buffer;
        actual.bytes = placed.buffers[a]->download();
        if (spec.intent == Intent::In) {
          if (why.empty() && !intact)
            why = "wrote outside the bounds of '" + spec.name + "'";
          if (why.empty() && actual.bytes != inputs[a].buffer.bytes)
            why = "modified the input '" + spec.name + "'";
          continue;
        }
        HostBuffer expected = inputs[a].buffer;
        std::memcpy(expected.bytes.data(), settings.expected.data() + expectedOffset, expected.bytes.size());
        expectedOffset += expected.bytes.size();
        if (!why.empty())
          continue;
        if (!intact) {
          why = "wrote outside the bounds of '" + spec.name + "'";
          continue;
        }
        const auto comparison = compareBuffers(spec.name, expected, actual, task.toleranceFor(spec.type));
        maxAbsError = std::max(maxAbsError, comparison.maxAbsError);
        if (!comparison.passed()) {
          why = std::to_string(comparison.mismatches) + " of " + std::to_string(comparison.count) + " elements of '" +
                spec.name + "' differ";
          json::array first;
          for (const auto &m : comparison.firstMismatches)
            first.push_back(
                json::object{{"index", m.index},
                             {"expected", std::isfinite(m.expected) ? json::value(m.expected) : json::value(nullptr)},
                             {"actual", std::isfinite(m.actual) ? json::value(m.actual) : json::value(nullptr)}});
          failure["max_abs_err"] = std::isfinite(comparison.maxAbsError) ? comparison.maxAbsError : -1.0;
          failure["max_rel_err"] = std::isfinite(comparison.maxRelError) ? comparison.maxRelError : -1.0;
          failure["first_mismatches"] = std::move(first);
        }
      }
      if (why.empty()) {
        ++passed;
        continue;
      }
      json::object sizes;
      for (const auto &[name, value] : task.correctnessSizes[s])
        sizes[name] = value;
      failure["sizes"] = std::move(sizes);
      failure["trial"] = trial;
      failure["distribution"] = trial % distributionCount(task);
      failure["reason"] = why;
      failures.push_back(std::move(failure));
    }
  }
  const double correctnessSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - correctnessStart).count();
  result["correctness"] = json::object{{"passed", passed},
                                       {"total", total},
                                       {"max_abs_err", std::isfinite(maxAbsError) ? maxAbsError : -1.0},
                                       {"failures", failures},
                                       {"seconds", correctnessSeconds}};
  result["kernel_trace"] = trace.available() ? json::value(json::object{{"largest_correctness_size", largestActivity}})
                                             : json::value(json::object{{"unavailable", trace.error()}});
  const bool allPassed = passed == total;
  result["status"] = allPassed ? "ok" : "wrong_answer";
  if (allPassed && !noKernels.empty()) {
    result["status"] = "rejected";
    result["error"] = noKernels;
  }

  if (result["status"] == "ok" && !settings.skipTiming) {
    const auto timingStart = std::chrono::steady_clock::now();
    const auto setup = benchmarkSetup(settings, task);
    void *flush = nullptr;
    check(cudaMalloc(&flush, kL2FlushBytes), "cudaMalloc L2 flush buffer");
    json::object timing;
    // Whose work is timed: one traced, untimed run at the benchmark size
    // (CUPTI slows launches, so it never overlaps the timed runs). The share
    // is the GPU time its kernels were busy over the synchronised call time;
    // a probe run rejects a CPU computation before 40 slow timed runs.
    std::optional<double> busyMs;
    auto gpuShare = [&](double callMs) { return callMs > 0 ? std::min(1.0, *busyMs / callMs) : 0.0; };
    std::string notOnGpu;
    if (trace.available()) {
      Placed placed = place(setup->inputs, device);
      check(cudaDeviceSynchronize(), "synchronize before the traced run");
      trace.start();
      callEntry(candidate.entry, placed.registers);
      check(cudaDeviceSynchronize(), "traced run");
      const KernelActivity activity = trace.stop();
      busyMs = activity.busyMs;
      timing["kernel_trace"] = json::object{{"kernels", activity.kernels},
                                            {"kernel_ms", activity.kernelMs},
                                            {"gpu_busy_ms", activity.busyMs},
                                            {"first_kernel", activity.firstKernel}};
      if (activity.kernels == 0)
        notOnGpu = "no kernel ran on the GPU during the call at the benchmark size";
      else if (device) {
        const TimingStats probe = timeLibrary(task, candidate.entry, setup->inputs, 0, 1, flush);
        if (gpuShare(median(probe.deviceSyncMs)) < settings.minGpuShare)
          notOnGpu = "the candidate's kernels kept the GPU busy " +
                     std::to_string(100 * gpuShare(median(probe.deviceSyncMs))) + "% of its call";
      }
    }
    if (notOnGpu.empty()) {
      const TimingStats stats =
          timeLibrary(task, candidate.entry, setup->inputs, settings.warmup, settings.runs, flush);
      for (auto &[key, value] : statsToJson(stats))
        timing[key] = value;
      const double candidateMs = median(stats.deviceSyncMs);
      if (busyMs) {
        timing["gpu_share"] = gpuShare(candidateMs);
        if (device && gpuShare(candidateMs) < settings.minGpuShare)
          notOnGpu = "the candidate's kernels kept the GPU busy " + std::to_string(100 * gpuShare(candidateMs)) +
                     "% of its median call";
      }
      if (settings.cpuBaselineMs > 0) {
        timing["cpu_baseline_ms"] = settings.cpuBaselineMs;
        timing["speedup_cpu"] = candidateMs > 0 ? settings.cpuBaselineMs / candidateMs : 0.0;
      }
      if (!settings.baseline.empty()) {
        auto known = setup->gpuBaselines.find(settings.baseline);
        if (known == setup->gpuBaselines.end()) {
          Library baseline(settings.baseline, task.entry);
          known = setup->gpuBaselines
                      .emplace(settings.baseline,
                               timeLibrary(task, baseline.entry, setup->inputs, settings.warmup, settings.runs, flush))
                      .first;
        }
        const TimingStats &baselineStats = known->second;
        timing["gpu_baseline"] = statsToJson(baselineStats);
        timing["gpu_baseline_ms"] = median(baselineStats.deviceSyncMs);
        timing["speedup_gpu"] = candidateMs > 0 ? median(baselineStats.deviceSyncMs) / candidateMs : 0.0;
      }
    }
    if (!notOnGpu.empty()) {
      result["status"] = "rejected";
      result["error"] = notOnGpu + " (minimum " + std::to_string(100 * settings.minGpuShare) +
                        "%): the work must be done by the candidate's own kernels";
    }
    cudaFree(flush);
    timing["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - timingStart).count();
    result["timing"] = timing;
  }
  result["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return result;
}

Settings settingsFromJson(const json::object &request) {
  Settings settings;
  auto text = [&](const char *key, bool required) -> std::string {
    if (const auto *value = request.if_contains(key); value && value->is_string())
      return std::string(value->get_string());
    if (required)
      throw Rejected(std::string("request field '") + key + "' missing or not a string");
    return "";
  };
  auto number = [&](const char *key, std::int64_t fallback) -> std::int64_t {
    if (const auto *value = request.if_contains(key)) {
      if (!value->is_int64())
        throw Rejected(std::string("request field '") + key + "' is not an integer");
      return value->get_int64();
    }
    return fallback;
  };
  auto real = [&](const char *key, double fallback) -> double {
    if (const auto *value = request.if_contains(key)) {
      if (!value->is_number())
        throw Rejected(std::string("request field '") + key + "' is not a number");
      return value->to_number<double>();
    }
    return fallback;
  };
  settings.taskJson = text("task_json", true);
  settings.taskName = text("task_name", true);
  settings.candidate = text("candidate", true);
  settings.baseline = text("baseline", false);
  settings.nonce = text("nonce", false);
  settings.seed = static_cast<std::uint64_t>(number("seed", 1));
  settings.trials = static_cast<int>(std::clamp<std::int64_t>(number("trials", 3), 1, 100));
  settings.warmup = static_cast<int>(std::clamp<std::int64_t>(number("warmup", 10), 0, 100));
  settings.runs = static_cast<int>(std::clamp<std::int64_t>(number("runs", 30), 1, 1000));
  settings.cpuBaselineMs = real("cpu_baseline_ms", -1);
  settings.minGpuShare = real("min_gpu_share", 0.05);
  if (const auto *skip = request.if_contains("skip_timing"); skip && skip->is_bool())
    settings.skipTiming = skip->get_bool();
  return settings;
}

// Answers one request; returns false when the process must exit (CUDA error).
bool answer(const Settings &settings, std::FILE *out) {
  json::object result;
  bool keepGoing = true;
  try {
    result = evaluate(settings);
  } catch (const CudaFailure &error) {
    result = {{"status", "runtime_error"}, {"error", error.what()}};
    keepGoing = false;
  } catch (const NoGpu &error) {
    result = {{"status", "no_gpu"}, {"error", error.what()}};
  } catch (const Rejected &error) {
    result = {{"status", "rejected"}, {"error", error.what()}};
  } catch (const TaskError &error) {
    result = {{"status", "bad_task"}, {"error", error.what()}};
  } catch (const std::exception &error) {
    result = {{"status", "harness_error"}, {"error", error.what()}};
  }
  result["nonce"] = settings.nonce;
  const std::string line = json::serialize(result) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
  return keepGoing;
}

void answerError(std::FILE *out, const std::string &status, const std::string &error) {
  const std::string line = json::serialize(json::object{{"status", status}, {"error", error}}) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

} // namespace

int main(int argc, char **) {
  if (argc != 1) {
    std::cerr << "usage: cudaperf-run < requests\n"
                 "  each request: one JSON line {task_json, task_name, candidate, expected_bytes, nonce?, baseline?,\n"
                 "  seed?, trials?, warmup?, runs?, skip_timing?, cpu_baseline_ms?, min_gpu_share?} followed by\n"
                 "  expected_bytes bytes of expected outputs (see docs/tasks.md)\n";
    return 2;
  }
  // Answers go to the stdout we started with; whatever the candidate prints
  // goes to stderr, so it cannot interleave with (or forge) an answer line.
  std::FILE *answers = fdopen(dup(STDOUT_FILENO), "w");
  dup2(STDERR_FILENO, STDOUT_FILENO);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    boost::system::error_code error;
    const json::value request = json::parse(line, error);
    if (error || !request.is_object()) {
      answerError(answers, "bad_request", "not a JSON object");
      return 2;
    }
    const auto *bytes = request.get_object().if_contains("expected_bytes");
    if (!bytes || !bytes->is_int64() || bytes->get_int64() < 0) {
      answerError(answers, "bad_request", "request field 'expected_bytes' missing or not a non-negative integer");
      return 2;
    }
    std::string expected(static_cast<std::size_t>(bytes->get_int64()), '\0');
    if (!std::cin.read(expected.data(), static_cast<std::streamsize>(expected.size()))) {
      answerError(answers, "bad_request", "stdin ended inside the expected outputs");
      return 2;
    }
    Settings settings;
    try {
      settings = settingsFromJson(request.get_object());
    } catch (const Rejected &problem) {
      answerError(answers, "bad_request", problem.what());
      continue;
    }
    settings.expected = std::move(expected);
    if (!answer(settings, answers))
      return 3;
  }
  return 0;
}
