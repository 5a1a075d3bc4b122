// The trusted side of an evaluation (reference outputs, their cache, the
// degenerate-task check) and the sandboxed harness against candidates that
// attack it from their constructors — all without a GPU: the harness loads
// the candidate before it looks for a device.
#include "cudaperf/daemon/JudgeRun.h"
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

// What the daemon asks before it makes an imported task's check-seed outputs ahead of the judge's question.
TEST(ReferenceOutputs, CachedSaysWhetherComputeWouldBeServedFromACache) {
  const auto cache = scratch("cached");
  const TaskSpec task = parseTask(kTaskJson, "scale");
  {
    ReferenceOutputs outputs(cache, 1000); // one seed's 8,008 bytes pass the memory bound: the disk has them
    EXPECT_FALSE(outputs.cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2));
    outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2, false);
    EXPECT_TRUE(outputs.cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2));
    EXPECT_FALSE(outputs.cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 6, 2)); // another seed
    EXPECT_FALSE(outputs.cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 3)); // another trial count
  }
  EXPECT_TRUE(ReferenceOutputs(cache).cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2)); // a restart
  ReferenceOutputs memoryOnly("");
  memoryOnly.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2, false);
  EXPECT_TRUE(memoryOnly.cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2));
  EXPECT_FALSE(ReferenceOutputs("").cached(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 5, 2));
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

TEST(ReferenceOutputs, TheMemoryCacheIsBoundedByBytes) {
  // Two seeds' expected outputs are 2 x 2 x 1001 floats = 8,008 bytes each.
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs("", 10000);
  const auto first = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false);
  EXPECT_EQ(outputs.memoryBytesHeld(), 8008u);
  EXPECT_TRUE(outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false).fromCache);
  outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 2, 2, false); // past the bound: the first goes
  EXPECT_EQ(outputs.memoryBytesHeld(), 8008u);
  const auto recomputed = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false);
  EXPECT_FALSE(recomputed.fromCache);
  EXPECT_EQ(recomputed.expectedBlob, first.expectedBlob);
  ReferenceOutputs tiny("", 1000); // one seed's outputs exceed the bound: never held
  EXPECT_FALSE(tiny.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false).expectedBlob.empty());
  EXPECT_EQ(tiny.memoryBytesHeld(), 0u);
  EXPECT_FALSE(tiny.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 1, 2, false).fromCache);
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

TEST(JudgeVerdicts, AJudgeThatEndsWithoutAnswerIsNeverTheCandidatesFault) {
  sandbox::Result run;
  for (auto outcome : {sandbox::Outcome::WallTimeout, sandbox::Outcome::CpuLimit, sandbox::Outcome::Signaled,
                       sandbox::Outcome::OutputLimit, sandbox::Outcome::Exited, sandbox::Outcome::StartFailed}) {
    run.outcome = outcome;
    run.signal = outcome == sandbox::Outcome::Signaled ? SIGSEGV : 0;
    const auto verdict = verdictWithoutAnswer(run, 30);
    EXPECT_EQ(verdict.at("status"), "harness_error") << sandbox::toString(outcome);
  }
  run.outcome = sandbox::Outcome::Signaled;
  run.signal = SIGSEGV;
  EXPECT_NE(std::string(verdictWithoutAnswer(run, 30).at("error").as_string()).find("signal 11"), std::string::npos);
}

TEST(ReferenceOutputs, FreshSeedsAreNotCachedAndTheCpuBaselineIsSharedAcrossSeeds) {
  const auto cache = scratch("fresh");
  const TaskSpec task = parseTask(kTaskJson, "scale");
  ReferenceOutputs outputs(cache);
  const auto a = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 11, 2, true, false);
  const auto b = outputs.compute(task, kTaskJson, CUDAPERF_SCALE_REFERENCE, 12, 2, true, false);
  EXPECT_FALSE(a.fromCache);
  EXPECT_FALSE(b.fromCache);
  EXPECT_NE(a.expectedBlob, b.expectedBlob) << "new seed, new inputs, new expected outputs";
  EXPECT_EQ(a.cpuBaselineMs, b.cpuBaselineMs) << "the CPU baseline does not depend on the seed";
  // Only the CPU baseline was written: a fresh seed is used once.
  std::size_t files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(cache))
    files += entry.path().extension() == ".expected";
  EXPECT_EQ(files, 0u);
  std::filesystem::remove_all(cache);
}
