// The judge and its sandboxed workers on a machine without a GPU: tasks in
// host memory mode (the buffers are memfds the judge shares), the judge in
// --device none mode. Every hostile fixture here attacks a defence of the
// judge/worker split; the verdict it must get is asserted, and where an
// attack could "work", a control shows it would have without the defence.
#include "cudaperf/daemon/JudgeRun.h"
#include "cudaperf/daemon/ReferenceOutputs.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <dirent.h>
#include <dlfcn.h>
#include <fstream>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace cudaperf;
namespace json = boost::json;

namespace {

const std::string kScaleTask = R"json({
  "name": "scale", "entry": "scale", "signature": "extern \"C\" void scale(const float *in, float *out, int n)",
  "args": [
    {"name": "in", "type": "float32*", "intent": "in", "size": "n",
     "init": [{"dist": "uniform", "low": -1, "high": 1}, {"dist": "normal", "mean": 0, "stddev": 1000}]},
    {"name": "out", "type": "float32*", "intent": "out", "size": "n"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 1}, {"n": 1000}], "benchmark": {"n": 4096}},
  "memory": "host"
})json";

const std::string kSumTask = R"json({
  "name": "sum", "entry": "sum", "signature": "extern \"C\" void sum(const float *x, float *out, int n)",
  "args": [
    {"name": "x", "type": "float32*", "intent": "in", "size": "n",
     "init": {"dist": "uniform", "low": 0, "high": 1, "outliers": {"fraction": 0.001, "low": -1000, "high": 1000}}},
    {"name": "out", "type": "float32*", "intent": "out", "size": "1"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 1000}, {"n": 5000}], "benchmark": {"n": 200000}},
  "tolerance": {"rtol": 1e-4, "atol": 1e-5},
  "memory": "host"
})json";

// Host-memory copies of two bundled tasks' contracts (the adversarial review's).
const std::string kSumReductionTask = R"json({
  "name": "sum_reduction", "entry": "sum_reduction", "signature": "extern \"C\" void sum_reduction(const float *x, float *out, int n)",
  "args": [
    {"name": "x", "type": "float32*", "intent": "in", "size": "n",
     "init": [{"dist": "uniform", "low": 0, "high": 1, "outliers": {"fraction": 1e-4, "low": -1000, "high": 1000}},
              {"dist": "uniform", "low": 0, "high": 1, "segments": {"length": 4096, "low": 0, "high": 8}}]},
    {"name": "out", "type": "float32*", "intent": "out", "size": "1"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 1}, {"n": 255}, {"n": 1000}, {"n": 65537}, {"n": 1000003}],
            "benchmark": {"n": 4194304}},
  "tolerance": {"rtol": 1e-4, "atol": 1e-5}, "benchmark_tolerance": {"rtol": 1e-3, "atol": 1e-5},
  "memory": "host"
})json";

const std::string kVectorAddTask = R"json({
  "name": "vector_add", "entry": "vector_add", "signature": "extern \"C\" void vector_add(const float *a, const float *b, float *c, int n)",
  "args": [
    {"name": "a", "type": "float32*", "intent": "in", "size": "n", "init": {"dist": "uniform", "low": -1, "high": 1}},
    {"name": "b", "type": "float32*", "intent": "in", "size": "n", "init": {"dist": "normal", "mean": 0, "stddev": 2}},
    {"name": "c", "type": "float32*", "intent": "out", "size": "n"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 1}, {"n": 1000}, {"n": 4097}, {"n": 65537}], "benchmark": {"n": 524288}},
  "memory": "host"
})json";

struct Judged {
  std::vector<json::object> results;
  const json::object &operator[](std::size_t i) const { return results.at(i); }
};

std::uint64_t randomSeed() {
  static std::random_device entropy;
  return (static_cast<std::uint64_t>(entropy()) << 32) | entropy();
}

// The judge in --device none mode (host memory tasks), 8 s per evaluation.
JudgeOptions hostJudge() {
  JudgeOptions options;
  options.judge = CUDAPERF_JUDGE;
  options.worker = CUDAPERF_WORKER;
  options.cuda = false;
  options.wallSeconds = 8;
  return options;
}

// Each candidate evaluated by one judge, in a worker of its own.
Judged judge(const std::string &taskJson, const std::string &name, const std::string &reference,
             const std::vector<std::string> &candidates, bool freshSeeds = false, int runs = 10,
             const std::string &baseline = "", int minRuns = 0, double medianHalfWidth = 0.005) {
  static std::vector<std::unique_ptr<TaskSpec>> tasks; // outlive the job
  tasks.push_back(std::make_unique<TaskSpec>(parseTask(taskJson, name)));
  ReferenceOutputs outputs("");
  JudgeJob job;
  job.task = tasks.back().get();
  job.taskJson = taskJson;
  job.reference = reference;
  job.warmup = 2;
  job.runs = runs;
  job.minRuns = minRuns > 0 ? minRuns : runs; // a fixed count unless a test asks
  job.medianHalfWidth = medianHalfWidth;
  if (!baseline.empty())
    job.baseline = baseline;
  for (const auto &library : candidates) {
    JudgeCandidate candidate;
    candidate.library = library;
    candidate.seed = freshSeeds ? randomSeed() : 1;
    candidate.reference = std::make_shared<const ReferenceData>(
        outputs.compute(*job.task, taskJson, reference, candidate.seed, job.effectiveTrials(), true, !freshSeeds));
    job.candidates.push_back(candidate);
  }
  return {runJudge(job, hostJudge())};
}

Judged scale(const std::vector<std::string> &candidates, bool freshSeeds = false) {
  return judge(kScaleTask, "scale", CUDAPERF_SCALE_REFERENCE, candidates, freshSeeds);
}

std::string statusOf(const json::object &result) { return std::string(result.at("status").as_string()); }
std::string errorOf(const json::object &result) {
  return result.contains("error") ? std::string(result.at("error").as_string()) : "";
}
std::string reasonsOf(const json::object &result) {
  std::string reasons;
  if (const auto *correctness = result.if_contains("correctness"))
    for (const auto &failure : correctness->at("failures").as_array())
      reasons += std::string(failure.at("reason").as_string()) + "; ";
  return reasons;
}

// Processes of the sandbox user still alive.
int nobodyProcesses() {
  int count = 0;
  DIR *proc = opendir("/proc");
  while (dirent *entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    std::ifstream status(std::string("/proc/") + entry->d_name + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("Uid:", 0) == 0 && line.find("65534") != std::string::npos)
        ++count;
  }
  closedir(proc);
  return count;
}

} // namespace

TEST(Judge, AnHonestCandidateIsCheckedOnEveryCallAndTimedByTheJudge) {
  const auto r = scale({CUDAPERF_SCALE_REFERENCE});
  ASSERT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
  const auto &correctness = r[0].at("correctness").as_object();
  // 2 trials x 2 sizes, and every timed call: one test more.
  EXPECT_EQ(correctness.at("passed").as_int64(), 5);
  EXPECT_EQ(correctness.at("total").as_int64(), 5);
  const auto &timing = r[0].at("timing").as_object();
  EXPECT_EQ(timing.at("verified_calls").as_int64(), 1 + 2 + 10); // traced, warm-up, timed: all checked
  EXPECT_EQ(timing.at("samples").as_array().size(), 10u);
  EXPECT_TRUE(r[0].at("sandbox").at("processes_isolated").as_bool());
  EXPECT_TRUE(r[0].at("sandbox").at("privileges_dropped").as_bool());
  EXPECT_EQ(r[0].at("replay").at("seed").to_number<std::uint64_t>(), 1u);
  // Where the timed calls' CPU went, thread by thread (the worker's main
  // thread runs the calls): as much as the account the budget is checked on.
  const auto &cpu = timing.at("cpu").as_object();
  double threadsMs = 0;
  for (const auto &thread : cpu.at("threads").as_array()) {
    EXPECT_FALSE(thread.at("name").as_string().empty()) << json::serialize(cpu);
    threadsMs += thread.at("ms").to_number<double>();
  }
  EXPECT_GE(threadsMs, 0.5 * cpu.at("ms").to_number<double>() - 0.5) << json::serialize(cpu);
}

// The timed calls' count between min_runs and runs: a median asked for
// loosely (within 100 times itself) stops before the maximum; one asked for
// exactly (half-width 0) takes every call. The candidate sleeps 20 ms a
// call, so that a scheduling hiccup of this shared machine is small beside
// its median (a call of microseconds made the loose case flaky under load).
TEST(Judge, TheTimedCallsStopOnceTheMedianIsPinnedDown) {
  for (const double halfWidth : {100.0, 0.0}) {
    const auto r =
        judge(kScaleTask, "scale", CUDAPERF_SCALE_REFERENCE, {CUDAPERF_SLEEPY_SCALE}, false, 30, "", 10, halfWidth);
    ASSERT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
    const auto &timing = r[0].at("timing").as_object();
    const std::int64_t calls = timing.at("timed_calls").as_int64();
    if (halfWidth > 0) {
      EXPECT_GE(calls, 10);
      EXPECT_LT(calls, 30) << json::serialize(timing);
    } else {
      EXPECT_EQ(calls, 30);
    }
    EXPECT_EQ(timing.at("samples").as_array().size(), static_cast<std::size_t>(calls));
    EXPECT_EQ(timing.at("verified_calls").as_int64(), 1 + 2 + calls); // every call it made still checked
  }
}

// Uneven on purpose (every third call 5 ms slower): the median's interval
// never closes, so the timing runs to the maximum, every call verified.
TEST(Judge, UnevenTimesTakeEveryTimedCall) {
  const auto r =
      judge(kScaleTask, "scale", CUDAPERF_SCALE_REFERENCE, {CUDAPERF_UNEVEN_SCALE}, false, 30, "", 10, 0.005);
  ASSERT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
  const auto &timing = r[0].at("timing").as_object();
  EXPECT_EQ(timing.at("timed_calls").as_int64(), 30);
  EXPECT_EQ(timing.at("verified_calls").as_int64(), 1 + 2 + 30);
}

TEST(Judge, TheBaselineIsTimedInTwoWorkersAndTheTighterGapIsTheReference) {
  // The reference library as the task's trusted baseline (timed, and the
  // timed calls' oracle) and as the candidate.
  const auto r = judge(kScaleTask, "scale", CUDAPERF_SCALE_REFERENCE, {CUDAPERF_SCALE_REFERENCE}, false, 10,
                       CUDAPERF_SCALE_REFERENCE);
  ASSERT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
  const auto &timing = r[0].at("timing").as_object();
  const auto &baseline = timing.at("gpu_baseline").as_object();
  const auto &gaps = baseline.at("worker_gap_medians_ms").as_array();
  ASSERT_EQ(gaps.size(), 2u) << json::serialize(baseline); // the full run's worker, the timing-only run's
  EXPECT_DOUBLE_EQ(baseline.at("gap_median_ms").as_double(),
                   std::min(gaps[0].to_number<double>(), gaps[1].to_number<double>()));
  EXPECT_EQ(baseline.at("samples").as_array().size(), 10u); // the speedup's denominator: the full run's
  EXPECT_GT(timing.at("speedup_gpu").as_double(), 0.0);
  // Where the judge's time went, for the daemon's profile: the first answer
  // carries the judge's start-up and the baseline's two workers; the worker's
  // run holds its trusted start, its load, its correctness and timing phases.
  const auto &phases = r[0].at("phases").as_object();
  EXPECT_GT(phases.at("judge_startup_seconds").as_double(), 0.0);
  EXPECT_GT(phases.at("baseline_seconds").as_double(), 0.0);
  EXPECT_GT(phases.at("trusted_start_seconds").as_double(), 0.0);
  EXPECT_GT(phases.at("load_seconds").as_double(), 0.0);
  EXPECT_GE(phases.at("worker_run_seconds").as_double(),
            phases.at("trusted_start_seconds").as_double() + phases.at("load_seconds").as_double() +
                r[0].at("correctness").at("seconds").as_double() + timing.at("seconds").as_double());
  // Whether the worker's times needed a second worker is the machine's (on a
  // loaded CPU the round trips are noisy); the answer says which it was.
  EXPECT_EQ(phases.at("second_worker").as_bool(), timing.contains("first_worker_rejected") ||
                                                      r[0].contains("first_worker_rejected") ||
                                                      r[0].contains("second_worker_verdict"));
  // A second candidate of the same judge pays neither again.
  const auto two = judge(kScaleTask, "scale", CUDAPERF_SCALE_REFERENCE,
                         {CUDAPERF_SCALE_REFERENCE, CUDAPERF_SCALE_REFERENCE}, false, 10, CUDAPERF_SCALE_REFERENCE);
  ASSERT_EQ(statusOf(two[1]), "ok") << json::serialize(two[1]);
  EXPECT_EQ(two[1].at("phases").at("judge_startup_seconds").as_double(), 0.0);
  EXPECT_LT(two[1].at("phases").at("baseline_seconds").as_double(), 0.001);
}

// An imported task's way (JudgeRun.h, correctnessFromBaseline): the
// reference's outputs are those of `checkSeed`, which only the baseline's own
// check reads; every candidate runs on a secret seed of its own, checked
// against the baseline the judge runs on the same inputs.
Judged judgeAgainstBaseline(const std::string &baseline, const std::vector<std::string> &candidates,
                            std::uint64_t checkSeed = kBaselineCheckSeed, bool withBaseline = true) {
  static const TaskSpec task = parseTask(kScaleTask, "scale");
  ReferenceOutputs outputs("");
  JudgeJob job;
  job.task = &task;
  job.taskJson = kScaleTask;
  job.reference = CUDAPERF_SCALE_REFERENCE;
  job.warmup = 2;
  job.runs = job.minRuns = 10;
  if (withBaseline)
    job.baseline = baseline;
  const auto expected = std::make_shared<const ReferenceData>(
      outputs.compute(task, kScaleTask, CUDAPERF_SCALE_REFERENCE, checkSeed, job.effectiveTrials(), true));
  for (const auto &library : candidates)
    job.candidates.push_back(JudgeCandidate{library, randomSeed(), expected, checkSeed});
  return {runJudge(job, hostJudge())};
}

TEST(Judge, WithTheBaselineAsTheOracleEachCandidateIsCheckedOnItsOwnSecretInputs) {
  // The check seed is public (a constant of the source): answers hard-coded
  // for its draws gain nothing, since no candidate is run on them; here
  // seed 1's, which hostile_seed_one knows, is the check seed.
  const auto r = judgeAgainstBaseline(
      CUDAPERF_SCALE_REFERENCE,
      {CUDAPERF_SCALE_REFERENCE, CUDAPERF_HOSTILE_SEED_ONE, CUDAPERF_CONSTANT_REFERENCE, CUDAPERF_HOSTILE_CALL_COUNTER},
      1);
  ASSERT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
  EXPECT_EQ(r[0].at("correctness").at("expected_from").as_string(), "baseline");
  EXPECT_EQ(r[0].at("correctness").at("passed").as_int64(), 5);
  EXPECT_NE(r[0].at("replay").at("seed").to_number<std::uint64_t>(), 1u); // the candidate's seed, not the check's
  EXPECT_GT(r[0].at("timing").at("speedup_gpu").as_double(), 0.0);
  EXPECT_EQ(r[0].at("timing").at("verified_calls").as_int64(), 1 + 2 + 10);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(statusOf(r[i]), "wrong_answer") << json::serialize(r[i]);
    EXPECT_EQ(r[i].at("correctness").at("expected_from").as_string(), "baseline");
  }
  EXPECT_EQ(r[1].at("correctness").at("passed").as_int64(), 0) << json::serialize(r[1]); // not seed 1's inputs
}

TEST(Judge, ABaselineTheReferenceDisagreesWithJudgesNoCandidate) {
  // A baseline that writes zeros would pass every candidate that does the
  // same: the reference checks it first, on the check seed's inputs, and the
  // task is at fault (bad_task), for the honest candidate and the lazy one.
  const auto r =
      judgeAgainstBaseline(CUDAPERF_CONSTANT_REFERENCE, {CUDAPERF_SCALE_REFERENCE, CUDAPERF_CONSTANT_REFERENCE});
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(statusOf(r[i]), "bad_task") << json::serialize(r[i]);
    EXPECT_NE(errorOf(r[i]).find("GPU baseline failed its own evaluation"), std::string::npos) << errorOf(r[i]);
  }
  // Without a baseline the judge has nothing to take a candidate's expected
  // outputs from: the request is refused, never judged on another seed's outputs.
  const auto none = judgeAgainstBaseline("", {CUDAPERF_SCALE_REFERENCE}, kBaselineCheckSeed, false);
  EXPECT_EQ(statusOf(none[0]), "bad_request") << json::serialize(none[0]);
  EXPECT_NE(json::serialize(none[0]).find("expected_seed"), std::string::npos) << json::serialize(none[0]);
}

TEST(Judge, AnOracleStarvedByTheCandidatesWorkerIsTheCandidatesVerdict) { // class 9
  // The oracle fails only while a sandboxed process is stopped (a frozen
  // candidate worker): like eager beside a worker that took the GPU's memory.
  // Once the worker is gone it computes, so the candidate, wrong or not, does
  // not trade its verdict for an unscored bad_task.
  const auto r = judgeAgainstBaseline(CUDAPERF_ORACLE_STARVED_BY_STOPPED_WORKER,
                                      {CUDAPERF_CONSTANT_REFERENCE, CUDAPERF_SCALE_REFERENCE});
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(statusOf(r[i]), "rejected") << json::serialize(r[i]);
    EXPECT_EQ(r[i].at("rejected_by").as_string(), "oracle_starved") << json::serialize(r[i]);
  }
}

TEST(Judge, TheJudgesClockChargesEveryMillisecond) {
  const auto r = scale({CUDAPERF_SLEEPY_SCALE});
  ASSERT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
  EXPECT_GE(r[0].at("timing").at("median_ms").as_double(), 19.5);
}

TEST(Judge, ShapeShortcutAtTheTimedSizeIsCaught) { // class 1
  const auto r = scale({CUDAPERF_HOSTILE_SHAPE_SHORTCUT});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
  EXPECT_NE(reasonsOf(r[0]).find("timed call 0 at the benchmark size"), std::string::npos) << reasonsOf(r[0]);
  // Every correctness test passed: only the timed calls' check sees it.
  EXPECT_EQ(r[0].at("correctness").at("passed").as_int64(), 4);
}

TEST(Judge, PhaseDetectionByCallCountIsCaught) { // class 2
  const auto r = scale({CUDAPERF_HOSTILE_CALL_COUNTER});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
}

TEST(Judge, MemoisingAnAnswerGainsNothingWhenEveryCallHasFreshInputs) { // class 3
  const auto r = scale({CUDAPERF_HOSTILE_MEMOISE});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
}

TEST(Judge, ASampledReductionMissesTheOutliers) { // class 4
  const auto honest = judge(kSumTask, "sum", CUDAPERF_SUM_REFERENCE, {CUDAPERF_SUM_REFERENCE});
  ASSERT_EQ(statusOf(honest[0]), "ok") << json::serialize(honest[0]);
  const auto r = judge(kSumTask, "sum", CUDAPERF_SUM_REFERENCE, {CUDAPERF_HOSTILE_SAMPLED_SUM});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
}

TEST(Judge, HostThreadsComputingAreRejected) { // class 5
  const auto r = scale({CUDAPERF_HOSTILE_HOST_THREADS});
  EXPECT_EQ(statusOf(r[0]), "rejected") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("CPU time"), std::string::npos) << errorOf(r[0]);
  // A CPU budget's rejection near its limit is asked of a second fresh worker
  // (an honest one's bad luck would not repeat); a rejection is replaced only
  // by an ok, and this one is rejected by both (far over the budget, it would
  // not have been asked at all).
  const json::value *ratio = r[0].if_contains("rejected_ratio");
  ASSERT_NE(ratio, nullptr) << json::serialize(r[0]);
  EXPECT_GT(ratio->to_number<double>(), 1.0) << json::serialize(r[0]);
  const bool near = ratio->to_number<double>() <= 1.3;
  EXPECT_EQ(r[0].at("phases").at("second_worker").as_bool(), near) << json::serialize(r[0]);
  if (near) // the second worker's verdict, whatever it was, did not replace the rejection
    EXPECT_TRUE(r[0].contains("second_worker_verdict")) << json::serialize(r[0]);
}

TEST(Judge, CoresSpunInTheCorrectnessCallsAreRejected) { // class 5, in the phase the timed budget does not see
  const auto r = scale({CUDAPERF_HOSTILE_CORRECTNESS_SPIN, CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "rejected") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("correctness calls"), std::string::npos) << errorOf(r[0]);
  // Stopped at its first call: no timing phase was reached.
  EXPECT_FALSE(r[0].contains("timing")) << json::serialize(r[0]);
  // One honest thread of work (the reference, after it) stays within the budget.
  EXPECT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
}

TEST(Judge, CoresSpunWhileTheLibraryLoadsAreRejected) { // class 12, before any call
  const auto r = scale({CUDAPERF_HOSTILE_CONSTRUCTOR_SPIN, CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "rejected") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("loading the library used"), std::string::npos) << errorOf(r[0]);
  EXPECT_FALSE(r[0].contains("correctness")) << json::serialize(r[0]); // stopped before its first call
  EXPECT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);            // an honest load is within the budget
}

TEST(Judge, CoresSpunInTheUntimedCallsAtTheTimedSizeAreRejected) { // class 5, the calls no sample comes from
  const auto r = scale({CUDAPERF_HOSTILE_WARMUP_SPIN});
  EXPECT_EQ(statusOf(r[0]), "rejected") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("untimed calls"), std::string::npos) << errorOf(r[0]);
  EXPECT_TRUE(r[0].at("correctness").at("failures").as_array().empty()) << json::serialize(r[0]); // honest outputs
}

TEST(Judge, AForgedReplyOnTheJudgesChannelIsRejected) { // class 8
  const auto r = scale({CUDAPERF_HOSTILE_CHANNEL_FORGE});
  EXPECT_EQ(statusOf(r[0]), "rejected") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("channel"), std::string::npos) << errorOf(r[0]);
}

TEST(Judge, TextLinesOnEveryDescriptorForgeNothing) {
  const auto r = scale({CUDAPERF_HOSTILE_FORGE});
  EXPECT_NE(statusOf(r[0]), "ok") << json::serialize(r[0]);
  EXPECT_FALSE(r[0].contains("timing"));
}

TEST(Judge, FailingOnPurposeIsTheCandidatesVerdict) { // class 9
  const auto r = scale({CUDAPERF_HOSTILE_CONSTRUCTOR_ABORT, CUDAPERF_HOSTILE_THROW, CUDAPERF_HOSTILE_EXIT});
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(statusOf(r[i]), "runtime_error") << json::serialize(r[i]);
  EXPECT_NE(errorOf(r[0]).find("signal 6"), std::string::npos) << errorOf(r[0]);
}

TEST(Judge, AnswersHardCodedForTheDefaultSeedFailOnFreshSeeds) { // class 10
  // With the fixed seed 1 the hard-coded correctness answers pass (the
  // control), and the timed calls' inputs, drawn from the judge's own
  // entropy, are not seed 1's.
  const auto fixed = scale({CUDAPERF_HOSTILE_SEED_ONE});
  EXPECT_EQ(statusOf(fixed[0]), "wrong_answer") << json::serialize(fixed[0]);
  EXPECT_EQ(fixed[0].at("correctness").at("passed").as_int64(), 4) << json::serialize(fixed[0]);
  EXPECT_NE(reasonsOf(fixed[0]).find("timed call 0"), std::string::npos) << reasonsOf(fixed[0]);
  const auto fresh = scale({CUDAPERF_HOSTILE_SEED_ONE}, true);
  EXPECT_EQ(statusOf(fresh[0]), "wrong_answer") << json::serialize(fresh[0]);
  EXPECT_NE(fresh[0].at("replay").at("seed").to_number<std::uint64_t>(), 1u);
}

TEST(Judge, WritesPastAnOutputAreCaughtNearAndFar) { // class 11
  const auto r = scale({CUDAPERF_HOSTILE_WRITE_BAND, CUDAPERF_HOSTILE_WRITE_FAR});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
  EXPECT_NE(reasonsOf(r[0]).find("outside the bounds of 'out'"), std::string::npos) << reasonsOf(r[0]);
  // 2.4 MB past the end: beyond the canary band the worker's mapping ends.
  EXPECT_EQ(statusOf(r[1]), "runtime_error") << json::serialize(r[1]);
  EXPECT_NE(errorOf(r[1]).find("signal 11"), std::string::npos) << errorOf(r[1]);
}

TEST(Judge, WhatACandidateLeavesBehindDiesWithItsWorker) { // class 12
  const auto r = scale({CUDAPERF_HOSTILE_LEFTOVER_THREAD, CUDAPERF_SCALE_REFERENCE});
  // Whether the scribbler's write lands between a call's last store and its
  // return is up to the scheduler (on a loaded 2-core machine it may never
  // run then): its own verdict is any of the candidate's, never the judge's.
  const auto own = statusOf(r[0]);
  EXPECT_TRUE(own == "ok" || own == "wrong_answer" || own == "rejected") << json::serialize(r[0]);
  ASSERT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
  // The next candidate's CPU use is its own: the spinning thread is gone.
  EXPECT_LT(r[1].at("timing").at("cpu").at("ms").as_double(), r[1].at("timing").at("cpu").at("budget_ms").as_double());
  usleep(200 * 1000);
  EXPECT_EQ(nobodyProcesses(), 0);
}

TEST(Judge, AReferenceThatBreaksAtTheTimedCallsIsTheTasksVerdict) {
  // The oracle of the timed calls is the reference (no GPU baseline here):
  // NaN everywhere from it is a broken task, not the candidate's wrong answer.
  const auto r = judge(kScaleTask, "scale", CUDAPERF_REFERENCE_NAN_AT_BENCHMARK, {CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "bad_task") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("failure pattern (NaN, or every byte 0xFF) to every element of 'out'"),
            std::string::npos)
      << errorOf(r[0]);
  // The control: the same candidate against a working reference is ok.
  EXPECT_EQ(statusOf(scale({CUDAPERF_SCALE_REFERENCE})[0]), "ok");
}

TEST(Judge, AReferenceWithIntegerOutputsThatBreaksAtTheTimedCallsIsTheTasksVerdict) {
  // Integer outputs have no NaN: a dead PyTorch server writes every byte 0xFF
  // to them (an imported argmax), which is the task's verdict too.
  const std::string floorTask = R"json({
    "name": "floor100", "entry": "floor100",
    "signature": "extern \"C\" void floor100(const float *in, long long *out, int n)",
    "args": [
      {"name": "in", "type": "float32*", "intent": "in", "size": "n", "init": {"dist": "uniform", "low": -1, "high": 1}},
      {"name": "out", "type": "int64*", "intent": "out", "size": "n"},
      {"name": "n", "type": "int32", "value": "n"}],
    "sizes": {"correctness": [{"n": 1000}], "benchmark": {"n": 4096}},
    "memory": "host"
  })json";
  const auto r = judge(floorTask, "floor100", CUDAPERF_REFERENCE_INT_POISON_AT_BENCHMARK, {CUDAPERF_FLOOR_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "bad_task") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("every byte 0xFF"), std::string::npos) << errorOf(r[0]);
  const auto control = judge(floorTask, "floor100", CUDAPERF_FLOOR_REFERENCE, {CUDAPERF_FLOOR_REFERENCE});
  EXPECT_EQ(statusOf(control[0]), "ok") << json::serialize(control[0]);
  // Class 9 through that rule: a candidate poisons its inputs so that the
  // oracle would write -1 everywhere, or writes the pattern as its own answer.
  // Either verdict is the candidate's, and the next candidate's inputs are clean.
  const auto hostile =
      judge(floorTask, "floor100", CUDAPERF_FLOOR_REFERENCE,
            {CUDAPERF_HOSTILE_INT_POISON_INPUTS, CUDAPERF_HOSTILE_ALL_ONES_OUTPUT, CUDAPERF_FLOOR_REFERENCE});
  const auto own = statusOf(hostile[0]);
  EXPECT_TRUE(own == "ok" || own == "wrong_answer" || own == "runtime_error" || own == "rejected")
      << json::serialize(hostile[0]);
  EXPECT_EQ(statusOf(hostile[1]), "wrong_answer") << json::serialize(hostile[1]);
  EXPECT_EQ(statusOf(hostile[2]), "ok") << json::serialize(hostile[2]);
}

TEST(Judge, PoisonedInputsCannotTurnTheReferenceRuleIntoAnUnscoredVerdict) { // class 9
  // The rule above makes an all-NaN reference the task's verdict; a candidate
  // that fills its inputs with NaN must not reach it: its verdict is its own.
  const auto r = scale({CUDAPERF_HOSTILE_NAN_INPUTS, CUDAPERF_SCALE_REFERENCE});
  const auto own = statusOf(r[0]);
  EXPECT_TRUE(own == "ok" || own == "wrong_answer" || own == "runtime_error" || own == "rejected")
      << json::serialize(r[0]);
  EXPECT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]); // the next candidate's inputs are clean
}

TEST(Judge, TheWorkersFilterRefusesNewProcesses) {
  const auto r = scale({CUDAPERF_HOSTILE_FORK});
  EXPECT_EQ(statusOf(r[0]), "ok") << "fork was not refused: " << json::serialize(r[0]);
}

TEST(Judge, CrashesTimeoutsAndFloodsAreTheCandidates) {
  const auto r =
      scale({CUDAPERF_HOSTILE_SEGFAULT, CUDAPERF_HOSTILE_SLEEP, CUDAPERF_HOSTILE_FLOOD, CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "runtime_error") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("signal 11"), std::string::npos);
  EXPECT_EQ(statusOf(r[1]), "timeout") << json::serialize(r[1]);
  EXPECT_EQ(statusOf(r[2]), "runtime_error") << json::serialize(r[2]);
  EXPECT_NE(errorOf(r[2]).find("output cap"), std::string::npos) << errorOf(r[2]);
  EXPECT_EQ(statusOf(r[3]), "ok") << json::serialize(r[3]); // the judge went on
}

TEST(Judge, AFloodInsideACallIsStoppedAtTheCapNotAtTheWallClockLimit) {
  const auto r = scale({CUDAPERF_HOSTILE_FLOOD_IN_CALL, CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "runtime_error") << json::serialize(r[0]);
  EXPECT_NE(errorOf(r[0]).find("output cap"), std::string::npos) << errorOf(r[0]);
  EXPECT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
}

TEST(Judge, ADeviceMemoryTaskWithoutAGpuIsNoGpu) {
  std::string task = kScaleTask;
  task.replace(task.find("\"memory\": \"host\""), std::string("\"memory\": \"host\"").size(), "\"memory\": \"device\"");
  const auto r = judge(task, "scale", CUDAPERF_SCALE_REFERENCE, {CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "no_gpu") << json::serialize(r[0]);
}

TEST(Judge, TheReferencesFolderIsHiddenFromTheWorker) {
  const std::filesystem::path probe = CUDAPERF_PROBE_FILE;
  std::filesystem::create_directories(probe.parent_path());
  std::ofstream(probe) << "void scale(...) { /* the reference */ }";
  std::filesystem::permissions(probe.parent_path(), std::filesystem::perms(0755));
  std::filesystem::permissions(probe, std::filesystem::perms(0644));
  const auto exposed = scale({CUDAPERF_HOSTILE_READ_REFERENCE});
  // Hidden as the daemon hides the task folders.
  static const TaskSpec task = parseTask(kScaleTask, "scale");
  ReferenceOutputs outputs("");
  JudgeJob job;
  job.task = &task;
  job.taskJson = kScaleTask;
  job.skipTiming = true;
  job.candidates = {{CUDAPERF_HOSTILE_READ_REFERENCE, 1,
                     std::make_shared<const ReferenceData>(
                         outputs.compute(task, kScaleTask, CUDAPERF_SCALE_REFERENCE, 1, 2, false))}};
  JudgeOptions options = hostJudge();
  options.hiddenPaths = {probe.parent_path().string()};
  const auto hidden = runJudge(job, options).front();
  std::filesystem::remove_all(probe.parent_path());
  EXPECT_NE(errorOf(exposed[0]).find("status 42"), std::string::npos) << json::serialize(exposed[0]); // control
  EXPECT_EQ(errorOf(hidden).find("status 42"), std::string::npos) << json::serialize(hidden);
}

// The judge's request carries the expected outputs right after its JSON line
// (JudgeRequest: written in two parts since this session). A worker that can
// read the memory of the judge or of the daemon side finds them.
TEST(Judge, TheJudgesRequestIsOutOfTheWorkersReach) {
  // Control: the hunter, loaded in a child of a process that holds a request, finds it.
  static const TaskSpec task = parseTask(kScaleTask, "scale");
  ReferenceOutputs outputs("");
  JudgeJob job;
  job.task = &task;
  job.taskJson = kScaleTask;
  JudgeCandidate held{
      CUDAPERF_SCALE_REFERENCE, 1,
      std::make_shared<const ReferenceData>(outputs.compute(task, kScaleTask, CUDAPERF_SCALE_REFERENCE, 1, 2, false)),
      0, nullptr};
  const JudgeRequest request = judgeRequest(job, hostJudge(), held, "nonce");
  const pid_t child = fork();
  if (child == 0) {
    dlopen(CUDAPERF_HOSTILE_READ_JUDGE_REQUEST, RTLD_NOW); // its constructor hunts; 42 when it found it
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_FALSE(request.header.empty());
  if (!(WIFEXITED(status) && WEXITSTATUS(status) == 42))
    GTEST_SKIP() << "this machine does not let a child read its parent's memory (no control)";
  // In a worker of the judge's: nothing to find, so it computes.
  const auto r = scale({CUDAPERF_HOSTILE_READ_JUDGE_REQUEST});
  EXPECT_EQ(statusOf(r[0]), "ok") << json::serialize(r[0]);
  EXPECT_EQ(errorOf(r[0]).find("status 42"), std::string::npos) << json::serialize(r[0]);
}

// The spares a judge keeps starting are stopped (SIGSTOP) while another
// worker's calls are timed: no candidate may reach them, nor any other
// worker, to continue, stop or kill them.
TEST(Judge, OtherWorkersAreOutOfACandidatesReach) {
  // Control: loaded in this process, the hunter counts the processes it could signal (and signals none).
  void *hunter = dlopen(CUDAPERF_HOSTILE_REACH_OTHER_WORKERS, RTLD_NOW);
  ASSERT_NE(hunter, nullptr) << dlerror();
  const auto addressable = reinterpret_cast<int (*)()>(dlsym(hunter, "hostile_addressable_processes"));
  ASSERT_NE(addressable, nullptr);
  ASSERT_GT(addressable(), 0) << "the control reached no process: the hunter could not tell";
  // In a worker of the judge's, between clean candidates (their spares
  // started around its calls): nothing in reach, so it computes, and the
  // candidates after it find their workers.
  const auto r = scale({CUDAPERF_SCALE_REFERENCE, CUDAPERF_HOSTILE_REACH_OTHER_WORKERS, CUDAPERF_SCALE_REFERENCE,
                        CUDAPERF_SCALE_REFERENCE});
  for (std::size_t i = 0; i < r.results.size(); ++i)
    EXPECT_EQ(statusOf(r[i]), "ok") << i << ": " << json::serialize(r[i]);
}

TEST(Judge, ARecoveredSeedPredictsNoTimedCall) { // class 10, the review's seed recovery
  const auto r = judge(kSumReductionTask, "sum_reduction", CUDAPERF_SUM_REDUCTION_REFERENCE,
                       {CUDAPERF_HOSTILE_SEED_RECOVERY, CUDAPERF_SUM_REDUCTION_REFERENCE}, true);
  ASSERT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
  // Honest or wrong, but never the speed of a precomputed answer.
  if (statusOf(r[0]) == "ok")
    EXPECT_GT(r[0].at("timing").at("median_ms").as_double(), 0.5 * r[1].at("timing").at("median_ms").as_double())
        << json::serialize(r[0]);
}

TEST(Judge, AForgedLoadedFromAConstructorIsTheCandidatesVerdict) { // class 9, the review's
  const auto r =
      judge(kSumReductionTask, "sum_reduction", CUDAPERF_SUM_REDUCTION_REFERENCE, {CUDAPERF_HOSTILE_FORGED_LOADED});
  EXPECT_EQ(statusOf(r[0]), "rejected") << json::serialize(r[0]);
}

TEST(Judge, AWorkerThatWouldLingerIsKilledBeforeTheNextCandidateMapsTheBuffers) { // class 12, the review's
  const auto r =
      judge(kVectorAddTask, "vector_add", CUDAPERF_VECTOR_ADD_REFERENCE,
            {CUDAPERF_HOSTILE_LINGER_SABOTAGE, CUDAPERF_VECTOR_ADD_REFERENCE, CUDAPERF_VECTOR_ADD_REFERENCE});
  EXPECT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
  EXPECT_EQ(statusOf(r[2]), "ok") << json::serialize(r[2]);
}

TEST(Judge, WorkAfterReturnedFindsTheWorkerStopped) { // class 7, the review's
  const auto r = judge(kVectorAddTask, "vector_add", CUDAPERF_VECTOR_ADD_REFERENCE,
                       {CUDAPERF_HOSTILE_AFTER_RETURN, CUDAPERF_VECTOR_ADD_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
  EXPECT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
}

TEST(Judge, ADoorbellRungBeforeTheWorkFindsTheOutputsUndone) { // the doorbell's own exploit
  const auto r = scale({CUDAPERF_HOSTILE_EARLY_DOORBELL, CUDAPERF_SCALE_REFERENCE});
  EXPECT_EQ(statusOf(r[0]), "wrong_answer") << json::serialize(r[0]);
  // The honest one after it: every call at the timed size ended at its
  // doorbell (the traced one, two warm-ups and ten timed calls).
  ASSERT_EQ(statusOf(r[1]), "ok") << json::serialize(r[1]);
  EXPECT_TRUE(r[1].at("calibration").at("doorbell").as_bool()) << json::serialize(r[1]);
  EXPECT_EQ(r[1].at("timing").at("calls_ended_by_doorbell").to_number<int>(), 13) << json::serialize(r[1]);
}
