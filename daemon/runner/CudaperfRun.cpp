// cudaperf-run: evaluates one compiled candidate of a task on the GPU, in its
// own process (a bad kernel poisons the CUDA context; the daemon must not
// share it). Correctness on fresh seeded inputs at every correctness size,
// against the task's reference; then timing at the benchmark size.
//
//   cudaperf-run --task DIR --candidate cand.so --reference ref.so [--baseline base.so]
//                [--seed N] [--trials N] [--warmup N] [--runs N] [--skip-timing]
//   cudaperf-run --worker      one JSON request per stdin line, one JSON answer per line
//
// Exit status: 0 after answering (whatever the verdict), 2 on bad usage, 3
// after a CUDA error (the context is unusable: the parent starts a new worker).
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/TaskData.h"

#include <boost/json.hpp>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

namespace json = boost::json;
using namespace cudaperf;

namespace {

constexpr std::size_t kMaxArguments = 12;
constexpr std::size_t kGuardBytes = 4096; // canary region on each side of every buffer
constexpr unsigned char kCanary = 0xA5;
constexpr std::size_t kL2FlushBytes = 256u << 20; // larger than any L2 (H200: 60 MB)

// Every argument is passed as a 64-bit integer register (x86-64 System V):
// pointers and integer scalars; the callee reads the first k it declares.
using EntryFunction = void (*)(std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t,
                               std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t,
                               std::intptr_t);

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

void call(EntryFunction entry, const std::vector<std::intptr_t> &args) {
  std::intptr_t a[kMaxArguments] = {};
  std::copy(args.begin(), args.end(), a);
  entry(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
}

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

// Registers for a call with host pointers into `arguments` (the reference).
std::vector<std::intptr_t> hostRegisters(std::vector<ArgumentData> &arguments) {
  std::vector<std::intptr_t> registers;
  for (auto &argument : arguments)
    registers.push_back(argument.pointer ? reinterpret_cast<std::intptr_t>(argument.buffer.bytes.data())
                                         : static_cast<std::intptr_t>(argument.scalar));
  return registers;
}

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
  std::string task, candidate, reference, baseline;
  std::uint64_t seed = 1;
  int trials = 2, warmup = 10, runs = 30;
  bool skipTiming = false;
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
    call(entry, recent.back().registers);
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

// What timing needs besides the candidate depends only on the task, the
// reference and the seed: the benchmark inputs, the CPU baseline on them and
// the GPU baseline's timing. A warm worker evaluates many candidates of one
// task, so it makes these once per process (the two most recent are kept:
// benchmark inputs are hundreds of MB).
struct BenchmarkSetup {
  std::vector<ArgumentData> inputs;
  double cpuBaselineMs = 0;
  std::map<std::string, TimingStats> gpuBaselines; // by baseline library
};

std::shared_ptr<BenchmarkSetup> benchmarkSetup(const Settings &settings, const TaskSpec &task,
                                               const Library &reference) {
  static std::deque<std::pair<std::string, std::shared_ptr<BenchmarkSetup>>> cache;
  const std::string key = settings.task + "\n" + settings.reference + "\n" + std::to_string(settings.seed);
  for (const auto &[cachedKey, setup] : cache)
    if (cachedKey == key)
      return setup;
  auto setup = std::make_shared<BenchmarkSetup>();
  setup->inputs = generateArguments(task, task.benchmarkSize, settings.seed ^ 0xBE9C4ull);
  std::vector<double> cpuMs;
  for (int run = 0; run < 3; ++run) {
    auto copy = setup->inputs;
    const auto registers = hostRegisters(copy);
    const auto start = std::chrono::steady_clock::now();
    call(reference.entry, registers);
    cpuMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  setup->cpuBaselineMs = median(cpuMs);
  cache.emplace_back(key, setup);
  if (cache.size() > 2)
    cache.pop_front();
  return setup;
}

json::object evaluate(const Settings &settings) {
  const auto began = std::chrono::steady_clock::now();
  json::object result;
  int devices = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&devices); status != cudaSuccess || devices == 0)
    throw NoGpu(status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device");
  const TaskSpec task = loadTask(settings.task);
  if (task.args.size() > kMaxArguments)
    throw Rejected("more than 12 arguments");
  Library reference(settings.reference, task.entry);
  Library candidate(settings.candidate, task.entry);
  const bool device = task.memory == MemoryMode::Device;

  // Correctness: every size, `trials` fresh seeds each.
  json::array failures;
  int passed = 0, total = 0;
  double maxAbsError = 0;
  const auto correctnessStart = std::chrono::steady_clock::now();
  for (int trial = 0; trial < settings.trials; ++trial) {
    for (std::size_t s = 0; s < task.correctnessSizes.size(); ++s) {
      ++total;
      const std::uint64_t seed = settings.seed * 1000003ull + trial * 101ull + s;
      const auto inputs = generateArguments(task, task.correctnessSizes[s], seed);
      // Reference on host copies.
      auto expected = inputs;
      call(reference.entry, hostRegisters(expected));

      Placed placed = place(inputs, device);
      call(candidate.entry, placed.registers);
      check(cudaDeviceSynchronize(), "candidate run");
      check(cudaGetLastError(), "candidate launch");

      std::string why;
      json::object failure;
      for (std::size_t a = 0; a < task.args.size() && why.empty(); ++a) {
        const ArgumentSpec &spec = task.args[a];
        if (!spec.pointer)
          continue;
        if (!placed.buffers[a]->canariesIntact()) {
          why = "wrote outside the bounds of '" + spec.name + "'";
          break;
        }
        HostBuffer actual = inputs[a].buffer;
        actual.bytes = placed.buffers[a]->download();
        if (spec.intent == Intent::In) {
          if (actual.bytes != inputs[a].buffer.bytes)
            why = "modified the input '" + spec.name + "'";
          continue;
        }
        const auto comparison = compareBuffers(spec.name, expected[a].buffer, actual, task.toleranceFor(spec.type));
        maxAbsError = std::max(maxAbsError, comparison.maxAbsError);
        if (comparison.degenerateExpected)
          result["degenerate_reference_output"] = spec.name;
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
  const bool allPassed = passed == total;
  result["status"] = allPassed ? "ok" : "wrong_answer";

  if (allPassed && !settings.skipTiming) {
    const auto timingStart = std::chrono::steady_clock::now();
    const auto setup = benchmarkSetup(settings, task, reference);
    void *flush = nullptr;
    check(cudaMalloc(&flush, kL2FlushBytes), "cudaMalloc L2 flush buffer");
    const TimingStats stats = timeLibrary(task, candidate.entry, setup->inputs, settings.warmup, settings.runs, flush);
    json::object timing = statsToJson(stats);
    const double candidateMs = median(stats.deviceSyncMs);
    timing["cpu_baseline_ms"] = setup->cpuBaselineMs;
    timing["speedup_cpu"] = candidateMs > 0 ? setup->cpuBaselineMs / candidateMs : 0.0;
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
  settings.task = text("task", true);
  settings.candidate = text("candidate", true);
  settings.reference = text("reference", true);
  settings.baseline = text("baseline", false);
  settings.seed = static_cast<std::uint64_t>(number("seed", 1));
  settings.trials = static_cast<int>(std::clamp<std::int64_t>(number("trials", 2), 1, 100));
  settings.warmup = static_cast<int>(std::clamp<std::int64_t>(number("warmup", 10), 0, 100));
  settings.runs = static_cast<int>(std::clamp<std::int64_t>(number("runs", 30), 1, 1000));
  if (const auto *skip = request.if_contains("skip_timing"); skip && skip->is_bool())
    settings.skipTiming = skip->get_bool();
  return settings;
}

// Answers one request; returns false when the process must exit (CUDA error).
bool answer(const Settings &settings, std::ostream &out) {
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
  out << json::serialize(result) << std::endl;
  return keepGoing;
}

int usage() {
  std::cerr << "usage: cudaperf-run --task DIR --candidate LIB --reference LIB [--baseline LIB] [--seed N]\n"
               "                    [--trials N] [--warmup N] [--runs N] [--skip-timing]\n"
               "       cudaperf-run --worker   (one JSON request per line on stdin)\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--worker") {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty())
        continue;
      boost::system::error_code error;
      const json::value request = json::parse(line, error);
      if (error || !request.is_object()) {
        std::cout << json::serialize(json::object{{"status", "bad_request"}, {"error", "not a JSON object"}})
                  << std::endl;
        continue;
      }
      Settings settings;
      try {
        settings = settingsFromJson(request.get_object());
      } catch (const Rejected &problem) {
        std::cout << json::serialize(json::object{{"status", "bad_request"}, {"error", problem.what()}}) << std::endl;
        continue;
      }
      if (!answer(settings, std::cout))
        return 3;
    }
    return 0;
  }
  json::object request;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size())
        throw std::invalid_argument(arg + " needs a value");
      return args[++i];
    };
    try {
      if (arg == "--task" || arg == "--candidate" || arg == "--reference" || arg == "--baseline")
        request[arg.substr(2)] = next();
      else if (arg == "--seed" || arg == "--trials" || arg == "--warmup" || arg == "--runs")
        request[arg.substr(2)] = std::stoll(next());
      else if (arg == "--skip-timing")
        request["skip_timing"] = true;
      else
        return usage();
    } catch (const std::exception &) {
      return usage();
    }
  }
  try {
    return answer(settingsFromJson(request), std::cout) ? 0 : 3;
  } catch (const Rejected &problem) {
    std::cerr << "cudaperf-run: " << problem.what() << "\n";
    return usage();
  }
}
