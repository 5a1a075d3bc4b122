// The daemon's long-lived judge (JudgeSession): batch after batch in one
// judge process, each task's baseline timing kept for its age limit across
// task switches, and a judge that dies or lies about its nonce replaced
// without its candidate being blamed. The real judge runs in --device none
// mode on host-memory tasks; the failure cases use stand-in judges (shell
// scripts on the channel) whose misbehaviour is exact.
#include "cudaperf/daemon/JudgeSession.h"
#include "cudaperf/daemon/ReferenceOutputs.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

using namespace cudaperf;
namespace json = boost::json;

namespace {

const char *kDoubleTask = R"json({
  "name": "double_it", "entry": "scale", "signature": "extern \"C\" void scale(const float *in, float *out, int n)",
  "args": [
    {"name": "in", "type": "float32*", "intent": "in", "size": "n", "init": {"dist": "uniform", "low": -4, "high": 4}},
    {"name": "out", "type": "float32*", "intent": "out", "size": "n"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 7}, {"n": 300}], "benchmark": {"n": 2048}},
  "memory": "host"
})json";

// The same contract under another name: to the judge, another task.
const char *kOtherTask = R"json({
  "name": "double_it_again", "entry": "scale", "signature": "extern \"C\" void scale(const float *in, float *out, int n)",
  "args": [
    {"name": "in", "type": "float32*", "intent": "in", "size": "n", "init": {"dist": "normal", "mean": 0, "stddev": 3}},
    {"name": "out", "type": "float32*", "intent": "out", "size": "n"},
    {"name": "n", "type": "int32", "value": "n"}],
  "sizes": {"correctness": [{"n": 5}], "benchmark": {"n": 1024}},
  "memory": "host"
})json";

class JudgeSessionTest : public ::testing::Test {
protected:
  JudgeOptions realJudge(double baselineMaxAge = 300) {
    JudgeOptions options;
    options.judge = CUDAPERF_JUDGE;
    options.worker = CUDAPERF_WORKER;
    options.cuda = false;
    options.wallSeconds = 8;
    options.baselineMaxAgeSeconds = baselineMaxAge;
    return options;
  }

  // `count` evaluations of the scale reference (as candidate and as the task's baseline).
  JudgeJob job(const char *taskJson, std::size_t count) {
    const std::string name = json::parse(taskJson).at("name").as_string().c_str();
    tasks_.push_back(std::make_unique<TaskSpec>(parseTask(taskJson, name)));
    JudgeJob job;
    job.task = tasks_.back().get();
    job.taskJson = taskJson;
    job.reference = CUDAPERF_SCALE_REFERENCE;
    job.baseline = CUDAPERF_SCALE_REFERENCE;
    job.warmup = 1;
    job.runs = 5;
    ReferenceOutputs outputs("");
    for (std::size_t i = 0; i < count; ++i) {
      JudgeCandidate candidate;
      candidate.library = CUDAPERF_SCALE_REFERENCE;
      candidate.seed = 1000 + i;
      candidate.reference = std::make_shared<const ReferenceData>(outputs.compute(
          *job.task, taskJson, CUDAPERF_SCALE_REFERENCE, candidate.seed, job.effectiveTrials(), true, false));
      job.candidates.push_back(candidate);
    }
    return job;
  }

  // A stand-in judge: a shell script given the request channel as descriptor 3.
  std::filesystem::path script(const std::string &name, const std::string &body) {
    const auto dir = std::filesystem::temp_directory_path() / ("judge-session-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  }

  static double phase(const json::object &answer, const char *name) {
    return answer.at("phases").at(name).to_number<double>();
  }
  static std::string status(const json::object &answer) { return std::string(answer.at("status").as_string()); }

  std::vector<std::unique_ptr<TaskSpec>> tasks_;
};

// Reads one request line from the channel and answers it with its own nonce.
const char *kEchoOneAnswer = R"sh(read -r line <&3
nonce=$(printf '%s' "$line" | sed 's/.*"nonce":"\([0-9a-f]*\)".*/\1/')
printf '{"status":"ok","judge_exits":true,"nonce":"%s"}\n' "$nonce" >&3
)sh";

TEST_F(JudgeSessionTest, BatchAfterBatchIsAnsweredByOneJudgeThatTimedTheBaselineOnce) {
  JudgeSession session(realJudge());
  const auto first = session.run(job(kDoubleTask, 1));
  const auto second = session.run(job(kDoubleTask, 2));
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 2u);
  for (const auto *answer : {&first[0], &second[0], &second[1]}) {
    ASSERT_EQ(status(*answer), "ok") << json::serialize(*answer);
    EXPECT_EQ(answer->at("judge").at("judges_started").to_number<int>(), 1);
    EXPECT_EQ(answer->at("judge").at("outcome").as_string(), "running");
  }
  EXPECT_EQ(second[1].at("judge").at("evaluations").to_number<int>(), 3);
  EXPECT_GT(phase(first[0], "judge_startup_seconds"), 0.0);
  EXPECT_GT(phase(first[0], "baseline_seconds"), 0.0);
  // The second batch pays for neither: the judge and its baseline timing lived on.
  EXPECT_EQ(phase(second[0], "judge_startup_seconds"), 0.0);
  EXPECT_LT(phase(second[0], "baseline_seconds"), 0.001);
  const auto &baseline = second[0].at("timing").at("gpu_baseline").as_object();
  EXPECT_GT(baseline.at("age_seconds").to_number<double>(), 0.0);
  EXPECT_DOUBLE_EQ(baseline.at("median_ms").to_number<double>(),
                   first[0].at("timing").at("gpu_baseline").at("median_ms").to_number<double>());
  EXPECT_EQ(session.failures(), 0u);
}

TEST_F(JudgeSessionTest, ATaskSwitchKeepsEachTasksBaselineTimingUntilItsAgeLimit) {
  JudgeSession keeps(realJudge(300));
  const auto a = keeps.run(job(kDoubleTask, 1));
  const auto b = keeps.run(job(kOtherTask, 1));
  const auto againA = keeps.run(job(kDoubleTask, 1));
  ASSERT_EQ(status(againA[0]), "ok") << json::serialize(againA[0]);
  EXPECT_GT(phase(b[0], "baseline_seconds"), 0.0);        // a task of its own: timed
  EXPECT_LT(phase(againA[0], "baseline_seconds"), 0.001); // back to the first: kept
  EXPECT_DOUBLE_EQ(againA[0].at("timing").at("gpu_baseline").at("median_ms").to_number<double>(),
                   a[0].at("timing").at("gpu_baseline").at("median_ms").to_number<double>());

  JudgeSession forgets(realJudge(0)); // every baseline timing is too old at once
  forgets.run(job(kDoubleTask, 1));
  const auto between = std::chrono::steady_clock::now();
  const auto retimed = forgets.run(job(kDoubleTask, 1));
  ASSERT_EQ(status(retimed[0]), "ok") << json::serialize(retimed[0]);
  EXPECT_GT(phase(retimed[0], "baseline_seconds"), 0.0);
  // Timed during this evaluation: younger than the time since the first ended.
  EXPECT_LT(retimed[0].at("timing").at("gpu_baseline").at("age_seconds").to_number<double>(),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - between).count());
}

// An imported task's way (JudgeRun.h): candidates checked against the
// baseline; the reference's outputs of the check seed made only when the
// judge asks, which it does once per task in its life.
struct OnRequest {
  int made = 0;
  bool fail = false;
};

JudgeJob checkedAgainstBaseline(JudgeJob job, const std::string &baseline, const std::shared_ptr<OnRequest> &asked) {
  job.baseline = baseline;
  for (auto &candidate : job.candidates) {
    auto cpuOnly = std::make_shared<ReferenceData>();
    cpuOnly->cpuBaselineMs = candidate.reference->cpuBaselineMs; // no expected outputs sent up front
    candidate.reference = cpuOnly;
    candidate.expectedSeed = kBaselineCheckSeed;
    const TaskSpec *task = job.task;
    const std::string taskJson = job.taskJson;
    const int trials = job.effectiveTrials();
    candidate.expectedOnRequest = [asked, task, taskJson, trials] {
      ++asked->made;
      if (asked->fail)
        throw TaskError("the reference could not start");
      ReferenceOutputs outputs("");
      return std::make_shared<const ReferenceData>(outputs.compute(
          *task, taskJson, CUDAPERF_SCALE_REFERENCE, kBaselineCheckSeed, static_cast<std::size_t>(trials), false));
    };
  }
  return job;
}

TEST_F(JudgeSessionTest, AnImportedTasksReferenceOutputsAreMadeOnceWhenTheJudgeAsks) {
  auto asked = std::make_shared<OnRequest>();
  JudgeSession session(realJudge(0)); // every baseline timing too old at once: timed again each time
  const auto first = session.run(checkedAgainstBaseline(job(kDoubleTask, 2), CUDAPERF_SCALE_REFERENCE, asked));
  const auto second = session.run(checkedAgainstBaseline(job(kDoubleTask, 1), CUDAPERF_SCALE_REFERENCE, asked));
  for (const auto *answer : {&first[0], &first[1], &second[0]}) {
    ASSERT_EQ(status(*answer), "ok") << json::serialize(*answer);
    EXPECT_EQ(answer->at("correctness").at("expected_from").as_string(), "baseline");
  }
  // Asked for by the first evaluation only: the baseline timed again for the
  // next ones, without the check it passed in this judge.
  EXPECT_EQ(asked->made, 1);
  EXPECT_GT(phase(second[0], "baseline_seconds"), 0.0);
  EXPECT_EQ(second[0].at("judge").at("judges_started").to_number<int>(), 1);
  EXPECT_EQ(session.failures(), 0u);
  // A fresh judge checks again: nothing of the last one's trust carries over.
  JudgeSession fresh(realJudge());
  const auto again = fresh.run(checkedAgainstBaseline(job(kDoubleTask, 1), CUDAPERF_SCALE_REFERENCE, asked));
  ASSERT_EQ(status(again[0]), "ok") << json::serialize(again[0]);
  EXPECT_EQ(asked->made, 2);
}

TEST_F(JudgeSessionTest, ABaselineThatFailsTheCheckOrAReferenceThatCannotRunIsTheTasksVerdict) {
  auto asked = std::make_shared<OnRequest>();
  JudgeSession session(realJudge());
  const auto wrong = session.run(checkedAgainstBaseline(job(kDoubleTask, 2), CUDAPERF_CONSTANT_REFERENCE, asked));
  for (const auto &answer : wrong) {
    EXPECT_EQ(status(answer), "bad_task") << json::serialize(answer);
    EXPECT_NE(json::serialize(answer).find("failed its own evaluation"), std::string::npos) << json::serialize(answer);
  }
  auto broken = std::make_shared<OnRequest>();
  broken->fail = true;
  const auto unmade = session.run(checkedAgainstBaseline(job(kOtherTask, 1), CUDAPERF_SCALE_REFERENCE, broken));
  EXPECT_EQ(status(unmade[0]), "bad_task") << json::serialize(unmade[0]);
  EXPECT_NE(json::serialize(unmade[0]).find("could not start"), std::string::npos);
  EXPECT_EQ(session.failures(), 0u);
}

TEST_F(JudgeSessionTest, AJudgeIsReplacedAfterItsEvaluationLimit) {
  JudgeSession session(realJudge(), 2);
  const auto answers = session.run(job(kDoubleTask, 3));
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[1].at("judge").at("judges_started").to_number<int>(), 1);
  EXPECT_EQ(answers[2].at("judge").at("judges_started").to_number<int>(), 2);
  EXPECT_EQ(status(answers[2]), "ok") << json::serialize(answers[2]);
  EXPECT_EQ(session.failures(), 0u); // a planned replacement is no failure
}

TEST_F(JudgeSessionTest, AJudgeThatEndsAfterAnsweringIsReplacedBeforeTheNextRequest) {
  // Answers one request, saying it exits, then exits 3, as a judge whose GPU context failed does.
  JudgeOptions options = realJudge();
  options.judge = script("answer-then-exit", std::string(kEchoOneAnswer) + "exit 3\n");
  JudgeSession session(options);
  const auto answers = session.run(job(kDoubleTask, 3));
  ASSERT_EQ(answers.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(status(answers[i]), "ok") << json::serialize(answers[i]);
    EXPECT_FALSE(answers[i].contains("judge_exits")); // the session's business, not the answer's
    EXPECT_EQ(answers[i].at("judge").at("judges_started").to_number<std::size_t>(), i + 1);
  }
  EXPECT_EQ(session.failures(), 2u);
}

TEST_F(JudgeSessionTest, AJudgeWhoseGpuDidNotComeUpIsNotKeptForTheNextEvaluation) {
  if (std::filesystem::exists("/dev/nvidia0"))
    GTEST_SKIP() << "a GPU is here: its judge comes up";
  // Asked for CUDA where there is none: the judge answers no_gpu and exits,
  // so that a transient failure costs one evaluation, not a judge's life.
  std::string deviceTask = kDoubleTask;
  const std::string host = "\"memory\": \"host\"";
  deviceTask.replace(deviceTask.find(host), host.size(), "\"memory\": \"device\"");
  JudgeOptions options = realJudge();
  options.cuda = true;
  JudgeSession session(options);
  const auto answers = session.run(job(deviceTask.c_str(), 2));
  ASSERT_EQ(answers.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(status(answers[i]), "no_gpu") << json::serialize(answers[i]);
    EXPECT_EQ(answers[i].at("judge").at("judges_started").to_number<std::size_t>(), i + 1);
  }
  EXPECT_EQ(session.failures(), 1u); // the first judge, replaced before the second request
}

TEST_F(JudgeSessionTest, NoAnswerOrAWrongNonceIsTheMachinesVerdictNeverTheCandidates) {
  JudgeOptions silent = realJudge();
  silent.judge = script("read-and-exit", "read -r line <&3\nexit 0\n");
  JudgeSession dies(silent);
  const auto died = dies.run(job(kDoubleTask, 2));
  ASSERT_EQ(died.size(), 2u);
  for (const auto &answer : died) {
    EXPECT_EQ(status(answer), "harness_error") << json::serialize(answer);
    EXPECT_NE(std::string(answer.at("error").as_string()).find("the judge ended without answering"), std::string::npos);
  }
  EXPECT_EQ(died[1].at("judge").at("outcome").as_string(), "exited");

  // An answer under another nonce is not this request's answer.
  JudgeOptions liar = realJudge();
  liar.judge = script("wrong-nonce", "read -r line <&3\nprintf '{\"status\":\"ok\",\"nonce\":\"0\"}\\n' >&3\n");
  JudgeSession lies(liar);
  const auto lied = lies.run(job(kDoubleTask, 1));
  EXPECT_EQ(status(lied[0]), "harness_error") << json::serialize(lied[0]);
  EXPECT_EQ(lies.failures(), 1u);
}

} // namespace
