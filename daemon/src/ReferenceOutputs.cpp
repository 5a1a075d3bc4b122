#include "cudaperf/daemon/ReferenceOutputs.h"

#include "TimingRules.h"
#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/daemon/CandidateCompiler.h"
#include "cudaperf/daemon/EntryCall.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

namespace cudaperf {

namespace {

constexpr const char *kFormat = "reference-outputs-v2"; // v2: counter-based inputs (InputDraw.h)
constexpr std::uint64_t kCpuBaselineSeed = 0xC0FFEE;

// Written whole or not at all, readable by its owner only (the sandboxed
// harness runs as another user).
void writeFileAtomically(const std::filesystem::path &path, const std::string &data) {
  const std::filesystem::path temporary = path.string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    stream.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!stream)
      return;
  }
  chmod(temporary.c_str(), 0600);
  std::filesystem::rename(temporary, path);
}

bool isOutput(const ArgumentSpec &spec) { return spec.pointer && spec.intent != Intent::In; }

bool allElementsEqual(const HostBuffer &buffer) {
  const std::size_t width = elementBytes(buffer.type);
  for (std::size_t i = 1; i < buffer.count; ++i)
    if (std::memcmp(buffer.bytes.data(), buffer.bytes.data() + i * width, width) != 0)
      return false;
  return true;
}

std::string expectedKey(const std::string &taskJson, const std::filesystem::path &referenceLibrary, std::uint64_t seed,
                        std::size_t trials) {
  return contentKey({kFormat, taskJson, fileContents(referenceLibrary), std::to_string(seed), std::to_string(trials)});
}

struct ReferenceLibrary {
  void *handle = nullptr;
  EntryFunction entry = nullptr;
  ReferenceLibrary(const std::filesystem::path &path, const TaskSpec &task) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw TaskError("task '" + task.name + "': cannot load the reference " + path.string() + ": " + dlerror());
    entry = reinterpret_cast<EntryFunction>(dlsym(handle, task.entry.c_str()));
    if (!entry)
      throw TaskError("task '" + task.name + "': the reference does not export '" + task.entry + "'");
  }
  ReferenceLibrary(const ReferenceLibrary &) = delete;
  ~ReferenceLibrary() { dlclose(handle); }
};

} // namespace

std::mutex &ReferenceOutputs::keyMutex(const std::string &key) {
  std::lock_guard lock(mutex_);
  auto &slot = keyMutexes_[key];
  if (!slot)
    slot = std::make_unique<std::mutex>();
  return *slot;
}

ReferenceOutputs::ReferenceOutputs(std::filesystem::path cacheDirectory, std::size_t memoryBytes)
    : cacheDirectory_(std::move(cacheDirectory)), memoryBytesLimit_(memoryBytes) {
  if (!cacheDirectory_.empty()) {
    std::filesystem::create_directories(cacheDirectory_);
    std::filesystem::permissions(cacheDirectory_, std::filesystem::perms::owner_all);
  }
}

std::string degenerateOutput(const TaskSpec &task, const std::vector<std::vector<HostBuffer>> &tests) {
  std::size_t output = 0;
  for (const auto &spec : task.args) {
    if (!isOutput(spec))
      continue;
    bool constantInEveryTest = true, anyMultiElement = false, sameAcrossTests = true;
    for (const auto &test : tests) {
      const HostBuffer &buffer = test[output];
      constantInEveryTest &= allElementsEqual(buffer);
      anyMultiElement |= buffer.count > 1;
      const HostBuffer &first = tests.front()[output];
      sameAcrossTests &= std::memcmp(first.bytes.data(), buffer.bytes.data(), elementBytes(buffer.type)) == 0;
    }
    if (!tests.empty() && constantInEveryTest && (anyMultiElement || sameAcrossTests))
      return spec.name;
    ++output;
  }
  return "";
}

std::size_t ReferenceOutputs::memoryBytesHeld() {
  std::lock_guard lock(mutex_);
  return memoryBytes_;
}

bool ReferenceOutputs::cached(const TaskSpec &task, const std::string &taskJson,
                              const std::filesystem::path &referenceLibrary, std::uint64_t seed, std::size_t trials) {
  const std::string key = expectedKey(taskJson, referenceLibrary, seed, trials);
  std::lock_guard lock(mutex_);
  if (memory_.count(key))
    return true;
  const std::filesystem::path blobFile = cacheDirectory_ / (task.name + "-" + key + ".expected");
  std::error_code error;
  return !cacheDirectory_.empty() && std::filesystem::file_size(blobFile, error) == expectedBlobBytes(task, trials) &&
         !error;
}

double ReferenceOutputs::cpuBaselineMs(const TaskSpec &task, const std::string &taskJson,
                                       const std::filesystem::path &referenceLibrary) {
  const std::string key = contentKey({kFormat, "cpu-baseline", taskJson, fileContents(referenceLibrary)});
  std::lock_guard computing(keyMutex(key));
  {
    std::lock_guard lock(mutex_);
    if (auto known = cpuBaselines_.find(key); known != cpuBaselines_.end())
      return known->second;
  }
  const std::filesystem::path cpuFile = cacheDirectory_ / (task.name + "-" + key + ".cpu_ms");
  if (!cacheDirectory_.empty() && std::filesystem::exists(cpuFile)) {
    const double ms = std::stod(fileContents(cpuFile));
    std::lock_guard lock(mutex_);
    return cpuBaselines_[key] = ms;
  }
  ReferenceLibrary reference(referenceLibrary, task);
  const auto inputs = generateArguments(task, task.benchmarkSize, benchmarkSeed(kCpuBaselineSeed));
  // Median of 3 runs, or fewer when the reference is slow (a naive C GEMM
  // takes seconds): the CPU baseline is a scale, not a benchmark.
  std::vector<double> runs;
  double spentMs = 0;
  for (int run = 0; run < 3 && spentMs < 2000; ++run) {
    auto copy = inputs;
    const auto registers = hostRegisters(copy);
    const auto start = std::chrono::steady_clock::now();
    callEntry(reference.entry, registers);
    runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    spentMs += runs.back();
  }
  const double ms = judge::median(runs);
  if (!cacheDirectory_.empty()) {
    std::ostringstream text;
    text.precision(17);
    text << ms;
    std::lock_guard lock(mutex_);
    writeFileAtomically(cpuFile, text.str());
  }
  std::lock_guard lock(mutex_);
  return cpuBaselines_[key] = ms;
}

ReferenceData ReferenceOutputs::compute(const TaskSpec &task, const std::string &taskJson,
                                        const std::filesystem::path &referenceLibrary, std::uint64_t seed,
                                        std::size_t trials, bool measureCpuBaseline, bool cacheExpected) {
  const std::string key = expectedKey(taskJson, referenceLibrary, seed, trials);
  ReferenceData data;
  const auto began = std::chrono::steady_clock::now();
  if (measureCpuBaseline)
    data.cpuBaselineMs = cpuBaselineMs(task, taskJson, referenceLibrary);
  // A fresh seed is computed once and never again: no per-key lock to keep.
  std::unique_lock<std::mutex> computing;
  if (cacheExpected)
    computing = std::unique_lock<std::mutex>(keyMutex(key));
  if (cacheExpected) {
    std::lock_guard lock(mutex_);
    if (auto known = memory_.find(key); known != memory_.end()) {
      const double cpu = data.cpuBaselineMs;
      data = known->second;
      data.cpuBaselineMs = cpu;
      data.fromCache = true;
      data.seconds = 0;
      return data;
    }
  }
  const std::filesystem::path blobFile = cacheDirectory_ / (task.name + "-" + key + ".expected");
  if (cacheExpected && !cacheDirectory_.empty()) {
    std::lock_guard lock(mutex_);
    if (std::filesystem::exists(blobFile)) {
      data.expectedBlob = fileContents(blobFile);
      if (data.expectedBlob.size() == expectedBlobBytes(task, trials)) {
        data.fromCache = true;
        return data;
      }
      data.expectedBlob.clear();
    }
  }

  ReferenceLibrary reference(referenceLibrary, task);
  std::vector<std::vector<HostBuffer>> tests;
  for (std::size_t trial = 0; trial < trials; ++trial)
    for (std::size_t s = 0; s < task.correctnessSizes.size(); ++s) {
      auto arguments = generateArguments(task, task.correctnessSizes[s], testSeed(seed, trial, s), trial);
      callEntry(reference.entry, hostRegisters(arguments));
      std::vector<HostBuffer> outputs;
      for (std::size_t a = 0; a < task.args.size(); ++a)
        if (isOutput(task.args[a])) {
          data.expectedBlob.append(reinterpret_cast<const char *>(arguments[a].buffer.bytes.data()),
                                   arguments[a].buffer.bytes.size());
          outputs.push_back(std::move(arguments[a].buffer));
        }
      tests.push_back(std::move(outputs));
    }
  if (const std::string output = degenerateOutput(task, tests); !output.empty())
    throw TaskError("task '" + task.name + "': the reference output '" + output +
                    "' holds one value in every correctness test: a task whose expected output is constant "
                    "cannot tell a wrong candidate from a right one");
  data.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (!cacheExpected)
    return data;
  {
    std::lock_guard lock(mutex_);
    // Only the recent ones: dropped all at once when the next would pass the
    // bound; one larger than the bound is not kept (the disk cache has it).
    const std::size_t bytes = data.expectedBlob.size();
    if (memory_.size() >= 64 || memoryBytes_ + bytes > memoryBytesLimit_) {
      memory_.clear();
      memoryBytes_ = 0;
    }
    if (bytes <= memoryBytesLimit_) {
      memory_[key] = data;
      memoryBytes_ += bytes;
    }
  }
  if (!cacheDirectory_.empty()) {
    std::lock_guard lock(mutex_);
    writeFileAtomically(blobFile, data.expectedBlob);
  }
  return data;
}

} // namespace cudaperf
