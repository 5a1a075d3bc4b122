// The trusted side of an evaluation (reference outputs, their cache, the
// degenerate-task check) and the sandboxed harness against candidates that
// attack it from their constructors — all without a GPU: the harness loads
// the candidate before it looks for a device.
#include "cudaperf/daemon/HarnessRun.h"
#include "cudaperf/daemon/ReferenceOutputs.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <atomic>
#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace cudaperf;
namespace json = boost::json;

namespace {

const std::string kTaskJson = R"json({
  "name": "scale", "entry": "scale", "signature": "extern \"C\" void scale(const float *in, float *out, int n)",
  "args": [
    {"name": "in", "type": "float32*", "intent": "in", "size": "n",
     "init": [{"dist": "uniform", "low": -1, "high": 1}, {"dist": "normal", "mean": 0, "stddev": 1000}]},
    {"name": "out", "type": "float32*", "intent": "out", "size": "n"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 1}, {"n": 1000}], "benchmark": {"n": 4096}}
})json";

std::filesystem::path scratch(const std::string &name) {
  const auto path =
      std::filesystem::temp_directory_path() / ("cudaperf-evaluation-test-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

float at(const std::string &blob, std::size_t index) {
  float value;
  std::memcpy(&value, blob.data() + index * sizeof(float), sizeof value);
  return value;
}

} // namespace

TEST(ReferenceOutputs, ExpectedOutputsFollowTheTrialsDistributions) {
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ASSERT_EQ(distributionCount(task), 2u);
  ReferenceOutputs outputs("");
  const auto data = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 7, 2, false);
  ASSERT_EQ(data.expectedBlob.size(), expectedBlobBytes(task, 2));
  ASSERT_EQ(data.expectedBlob.size(), 2 * (1 + 1000) * sizeof(float));
  // The same inputs the harness draws: test (trial 1, size 1) is normal(0, 1000) doubled.
  const auto inputs = generateArguments(task, task.correctnessSizes[1], testSeed(7, 1, 1), 1);
  float first;
  std::memcpy(&first, inputs[0].buffer.bytes.data(), sizeof first);
  EXPECT_EQ(at(data.expectedBlob, 1001 + 1), 2.0f * first);
  double largest = 0;
  for (std::size_t i = 0; i < 1000; ++i)
    largest = std::max(largest, std::abs(static_cast<double>(at(data.expectedBlob, 1001 + 1 + i))));
  EXPECT_GT(largest, 100.0); // the wide distribution, not uniform(-1, 1)
  EXPECT_EQ(data.cpuBaselineMs, -1);
}

TEST(ReferenceOutputs, CachedOnDiskPerTaskReferenceAndSeed) {
  const auto cache = scratch("cache");
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs(cache);
  const auto first = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, true);
  EXPECT_FALSE(first.fromCache);
  EXPECT_GE(first.cpuBaselineMs, 0);
  const auto again = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, true);
  EXPECT_TRUE(again.fromCache);
  EXPECT_EQ(again.expectedBlob, first.expectedBlob);
  EXPECT_EQ(again.cpuBaselineMs, first.cpuBaselineMs);
  EXPECT_FALSE(outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 2, 2, true).fromCache);
  for (const auto &entry : std::filesystem::directory_iterator(cache)) // not readable by the sandbox user
    EXPECT_EQ(entry.status().permissions() & std::filesystem::perms::others_read, std::filesystem::perms::none);
  std::filesystem::remove_all(cache);
}

TEST(ReferenceOutputs, ConcurrentEvaluationsOfATaskComputeItOnce) {
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs("");
  std::vector<std::thread> threads;
  std::atomic<int> computed{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      if (!outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 3, 2, true).fromCache)
        ++computed;
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(computed.load(), 1);
}

TEST(ReferenceOutputs, DegenerateTaskIsRejected) {
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs("");
  try {
    outputs.compute(task, kTaskJson, CUDAPERF_CONSTANT_REFERENCE, 1, 2, false);
    FAIL() << "a constant reference output was accepted";
  } catch (const TaskError &error) {
    EXPECT_NE(std::string(error.what()).find("'out' holds one value in every correctness test"), std::string::npos)
        << error.what();
  }
}

TEST(ReferenceOutputs, OneElementOutputsThatVaryAreNotDegenerate) {
  const TaskSpec task = parseTask(kTaskJson, "scale");
  auto buffer = [](float value) {
    HostBuffer b;
    b.count = 1;
    b.bytes.resize(4);
    std::memcpy(b.bytes.data(), &value, 4);
    return b;
  };
  EXPECT_EQ(degenerateOutput(task, {{buffer(1)}, {buffer(2)}}), "");
  EXPECT_EQ(degenerateOutput(task, {{buffer(3)}, {buffer(3)}}), "out");
}

TEST(HarnessVerdicts, EveryWayOfEndingHasAVerdict) {
  sandbox::Limits limits;
  sandbox::Result run;
  auto status = [&](sandbox::Outcome outcome, int code = 0, int signal = 0) {
    run.outcome = outcome;
    run.exitCode = code;
    run.signal = signal;
    return std::string(verdictWithoutAnswer(run, limits).at("status").as_string());
  };
  EXPECT_EQ(status(sandbox::Outcome::WallTimeout), "timeout");
  EXPECT_EQ(status(sandbox::Outcome::CpuLimit), "timeout");
  EXPECT_EQ(status(sandbox::Outcome::Signaled, -1, SIGSEGV), "runtime_error");
  EXPECT_EQ(status(sandbox::Outcome::OutputLimit), "runtime_error");
  EXPECT_EQ(status(sandbox::Outcome::FileSizeLimit), "runtime_error");
  EXPECT_EQ(status(sandbox::Outcome::Exited, 0), "runtime_error");
  EXPECT_EQ(status(sandbox::Outcome::StartFailed), "harness_error");
  run.outcome = sandbox::Outcome::Signaled;
  run.signal = SIGABRT;
  EXPECT_NE(std::string(verdictWithoutAnswer(run, limits).at("error").as_string()).find("Abort"), std::string::npos);
}

#ifdef CUDAPERF_RUNNER
namespace {

json::object evaluateFixture(const std::string &candidate, std::vector<std::string> hidden = {}) {
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs("");
  const auto reference = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false);
  HarnessJob job;
  job.task = &task;
  job.taskJson = kTaskJson;
  job.candidates = {candidate};
  job.skipTiming = true;
  HarnessOptions options;
  options.runner = CUDAPERF_RUNNER;
  options.limits.wallSeconds = 4;
  options.limits.cpuSeconds = 4;
  options.limits.hiddenPaths = std::move(hidden);
  return runHarness(job, reference, options).front();
}

std::string statusOf(const json::object &result) { return std::string(result.at("status").as_string()); }

} // namespace

TEST(HarnessRun, AnswersWithTheSandboxsAccount) {
  const auto result = evaluateFixture(CUDAPERF_SCALE_REFERENCE); // a harmless library
  // No GPU here: no_gpu; with one, the harmless library computes nothing on the GPU.
  EXPECT_TRUE(statusOf(result) == "no_gpu" || statusOf(result) == "rejected") << json::serialize(result);
  EXPECT_TRUE(result.at("sandbox").as_object().contains("network_isolated"));
}

TEST(HarnessRun, AHarnessEndedByOneCandidateIsRestartedForTheNext) {
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs("");
  const auto reference = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false);
  HarnessJob job;
  job.task = &task;
  job.taskJson = kTaskJson;
  job.candidates = {CUDAPERF_SCALE_REFERENCE, CUDAPERF_HOSTILE_SEGFAULT, CUDAPERF_SCALE_REFERENCE};
  job.skipTiming = true;
  HarnessOptions options;
  options.runner = CUDAPERF_RUNNER;
  options.limits.wallSeconds = 4;
  const auto results = runHarness(job, reference, options);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(statusOf(results[1]), "runtime_error");
  EXPECT_EQ(results[0].at("status"), results[2].at("status")); // the third is unaffected by the second
  EXPECT_NE(statusOf(results[2]), "runtime_error");
}

TEST(HarnessRun, AHarnessUnderTmpStaysVisibleBehindThePrivateTmp) {
  // Builds and caches often live under /tmp, which the sandbox replaces.
  const auto folder = scratch("under-tmp");
  std::filesystem::copy_file(CUDAPERF_RUNNER, folder / "cudaperf-run");
  std::filesystem::copy_file(CUDAPERF_SCALE_REFERENCE, folder / "candidate.so");
  std::filesystem::permissions(folder, std::filesystem::perms(0755));
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs("");
  const auto reference = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false);
  HarnessJob job;
  job.task = &task;
  job.taskJson = kTaskJson;
  job.candidates = {folder / "candidate.so"};
  job.skipTiming = true;
  HarnessOptions options;
  options.runner = folder / "cudaperf-run";
  options.limits.wallSeconds = 4;
  const auto result = runHarness(job, reference, options).front();
  std::filesystem::remove_all(folder);
  EXPECT_TRUE(statusOf(result) == "no_gpu" || statusOf(result) == "rejected") << json::serialize(result);
}

TEST(HarnessRun, ExitInsideTheCandidateIsARuntimeError) {
  const auto result = evaluateFixture(CUDAPERF_HOSTILE_EXIT);
  EXPECT_EQ(statusOf(result), "runtime_error") << json::serialize(result);
  EXPECT_NE(std::string(result.at("error").as_string()).find("before the harness answered"), std::string::npos);
}

TEST(HarnessRun, ForgedVerdictLinesAreIgnored) {
  const auto result = evaluateFixture(CUDAPERF_HOSTILE_FORGE);
  EXPECT_NE(statusOf(result), "ok") << json::serialize(result);
  EXPECT_FALSE(result.contains("correctness")) << json::serialize(result);
}

TEST(HarnessRun, FloodingStdoutIsStopped) {
  const auto result = evaluateFixture(CUDAPERF_HOSTILE_FLOOD);
  EXPECT_EQ(statusOf(result), "runtime_error") << json::serialize(result);
  EXPECT_EQ(result.at("sandbox").at("outcome"), "output_limit");
}

TEST(HarnessRun, SleepingForeverTimesOut) {
  const auto result = evaluateFixture(CUDAPERF_HOSTILE_SLEEP);
  EXPECT_EQ(statusOf(result), "timeout") << json::serialize(result);
}

TEST(HarnessRun, SegfaultIsARuntimeError) {
  const auto result = evaluateFixture(CUDAPERF_HOSTILE_SEGFAULT);
  EXPECT_EQ(statusOf(result), "runtime_error") << json::serialize(result);
  EXPECT_NE(std::string(result.at("error").as_string()).find("signal 11"), std::string::npos);
}

TEST(HarnessRun, ReferenceFilesAreHidden) {
  if (geteuid() != 0)
    GTEST_SKIP() << "hiding paths needs a mount namespace (root)";
  const std::filesystem::path probe = CUDAPERF_PROBE_FILE;
  std::filesystem::create_directories(probe.parent_path());
  std::ofstream(probe) << "void scale(...) { /* the reference */ }";
  std::filesystem::permissions(probe.parent_path(), std::filesystem::perms(0755));
  std::filesystem::permissions(probe, std::filesystem::perms(0644));
  const auto exposed = evaluateFixture(CUDAPERF_HOSTILE_READ_REFERENCE);
  const auto hidden = evaluateFixture(CUDAPERF_HOSTILE_READ_REFERENCE, {probe.parent_path().string()});
  std::filesystem::remove_all(probe.parent_path());
  // The control: visible, the candidate reads it (and says so with status 42).
  EXPECT_NE(std::string(exposed.at("error").as_string()).find("status 42"), std::string::npos)
      << json::serialize(exposed);
  if (!hidden.at("sandbox").at("filesystem_isolated").as_bool())
    GTEST_SKIP() << "mount namespace refused here";
  EXPECT_EQ(std::string(hidden.at("error").as_string()).find("status 42"), std::string::npos)
      << json::serialize(hidden);
}
#endif
