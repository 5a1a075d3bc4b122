// From a judge's answer to the reward a trainer receives, checked against the
// formulas of docs/rewards.md by hand (alpha_comp 3, alpha_wrong 2,
// alpha_speed 1, alpha_cv 0.5, log2 speedup clipped to [-0.5, 4], lambda 1).
#include "cudaperf/daemon/RewardAssembly.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cmath>

namespace json = boost::json;
using namespace cudaperf;

namespace {

// A judge's answer as the daemon reads it.
JudgeVerdict judged(const char *status, int passed, int total, double speedupCpu, double speedupGpu, double cv) {
  return JudgeVerdict::fromAnswer(
      json::parse(R"({"status": ")" + std::string(status) + R"(", "correctness": {"passed": )" +
                  std::to_string(passed) + R"(, "total": )" + std::to_string(total) +
                  R"(}, "timing": {"speedup_cpu": )" + std::to_string(speedupCpu) + R"(, "speedup_gpu": )" +
                  std::to_string(speedupGpu) + R"(, "cv": )" + std::to_string(cv) + "}}")
          .as_object());
}

double component(const json::object &reward, const char *name) {
  return reward.at("r_ver").as_object().at(name).to_number<double>();
}

} // namespace

TEST(RewardAssembly, AnOkEvaluationGetsEveryComponent) {
  RewardConfig config;
  config.baseline = SpeedupBaseline::Gpu;
  const JudgedOutcome judgedRun = judgedOutcome(judged("ok", 13, 13, 300.0, 4.0, 0.02), config);
  const VerifiableOutcome &outcome = judgedRun.outcome;
  // The speedup over the GPU baseline is the one used, and the answer says so.
  EXPECT_EQ(outcome.speedup, 4.0);
  EXPECT_EQ(judgedRun.speedup, 4.0);
  EXPECT_EQ(judgedRun.baseline, "gpu");
  EXPECT_EQ(outcome.testsPassed, 13);
  EXPECT_EQ(outcome.testsTotal, 13);
  EXPECT_DOUBLE_EQ(outcome.cv, 0.02);
  const json::object reward = assembleReward("ok", outcome, 0.5, config).toJson();
  // compile 0, correctness 0, speed log2(4) = 2, variance -0.5 * 0.02 = -0.01: R_ver 1.99; + 1 * 0.5.
  EXPECT_DOUBLE_EQ(component(reward, "compile"), 0.0);
  EXPECT_DOUBLE_EQ(component(reward, "correctness"), 0.0);
  EXPECT_DOUBLE_EQ(component(reward, "speed"), 2.0);
  EXPECT_DOUBLE_EQ(component(reward, "variance"), -0.01);
  EXPECT_DOUBLE_EQ(component(reward, "total"), 1.99);
  EXPECT_TRUE(reward.at("r_ver").as_object().at("all_passed").as_bool());
  EXPECT_DOUBLE_EQ(reward.at("r_str").as_double(), 0.5);
  EXPECT_DOUBLE_EQ(reward.at("total").as_double(), 2.49);
}

// No failure earns structure credit however kernel-like its source reads: a
// failed compile, a hack (rejected, scored alike), a wrong answer, a crash, a
// timeout take only R_str's negative part; a correct answer takes all of it.
// The rule reads the verdict, not the penalty's sign (alpha_comp may be 0).
TEST(RewardAssembly, StructureCreditOnlyBesideACorrectAnswer) {
  RewardConfig config;
  VerifiableOutcome ran;
  ran.compiled = true;
  ran.testsTotal = 4;
  const VerifiableOutcome notBuilt{};
  const struct {
    const char *status;
    const VerifiableOutcome &outcome;
    double rVer;
  } failures[] = {{"compile_error", notBuilt, -3.0},
                  {"rejected", ran, -3.0},
                  {"wrong_answer", ran, -2.0}, // 0 of 4
                  {"runtime_error", ran, -2.0},
                  {"timeout", ran, -2.0}};
  for (const auto &failure : failures) {
    RewardStage good = assembleReward(failure.status, failure.outcome, std::nullopt, config);
    setStructuralReward(good, 2.6, 0.1, config);               // R_str +2.5 against the baseline
    EXPECT_DOUBLE_EQ(*good.rStr, 2.5) << failure.status;       // reported as scored
    EXPECT_DOUBLE_EQ(good.rStrApplied, 0.0) << failure.status; // none of it in the total
    EXPECT_DOUBLE_EQ(good.total, failure.rVer) << failure.status;
    EXPECT_DOUBLE_EQ(good.toJson().at("r_str_applied").as_double(), 0.0);
    RewardStage bad = good;
    setStructuralReward(bad, -1.0, 0.1, config); // -1.1: costs as before
    EXPECT_DOUBLE_EQ(bad.total, failure.rVer - 1.1) << failure.status;
  }
  VerifiableOutcome correct = ran;
  correct.testsPassed = 4;
  correct.speedup = 2.0; // log2 = 1
  RewardStage fine = assembleReward("ok", correct, std::nullopt, config);
  setStructuralReward(fine, 2.6, 0.1, config);
  EXPECT_DOUBLE_EQ(fine.total, 1.0 + 2.5);
  // With no compile penalty at all the rule still holds (it is the verdict's, not the penalty's sign).
  config.alphaComp = 0;
  RewardStage free = assembleReward("compile_error", notBuilt, std::nullopt, config);
  setStructuralReward(free, 2.6, 0.1, config);
  EXPECT_DOUBLE_EQ(free.total, 0.0);
  RewardConfig paper;
  paper.structureCreditWhenFailed = true;
  RewardStage compileError = assembleReward("compile_error", notBuilt, std::nullopt, paper);
  setStructuralReward(compileError, 2.6, 0.1, paper);
  EXPECT_DOUBLE_EQ(compileError.total, -3.0 + 2.5);
}

TEST(RewardAssembly, EachVerdictMapsToItsFormula) {
  const RewardConfig config; // speedup over the C reference
  struct Case {
    const char *status;
    int passed, total;
    double speedupCpu;
    double expectedRVer; // NaN: unscored (r_ver null)
  } cases[] = {
      // 9 of 13 passed: -2 * 4/13, no speed term.
      {"wrong_answer", 9, 13, 50.0, -2.0 * 4 / 13},
      // A speedup of 1000 clips to log2 = 4; CV 0.1 costs 0.05.
      {"ok", 5, 5, 1000.0, 4.0 - 0.05},
      // Slower than the reference: log2(0.25) = -2 clips to -0.5.
      {"ok", 5, 5, 0.25, -0.5 - 0.05},
      // Rejected: scored like a failed compile, whatever its tests said.
      {"rejected", 5, 5, 80.0, -3.0},
      // A crash, a timeout: no correctness credit (all failed).
      {"runtime_error", 5, 5, 0.0, -2.0},
      {"timeout", 0, 0, 0.0, -2.0},
      // Nobody's doing: unscored.
      {"no_gpu", 0, 0, 0.0, NAN},
      {"harness_error", 0, 0, 0.0, NAN},
      {"bad_task", 0, 0, 0.0, NAN},
  };
  for (const Case &c : cases) {
    const json::object reward =
        assembleReward(c.status,
                       judgedOutcome(judged(c.status, c.passed, c.total, c.speedupCpu, 1.0, 0.1), config).outcome, -1.0,
                       config)
            .toJson();
    if (std::isnan(c.expectedRVer)) {
      EXPECT_TRUE(reward.at("r_ver").is_null()) << c.status;
      EXPECT_DOUBLE_EQ(reward.at("total").as_double(), -1.0) << c.status; // lambda * R_str alone
    } else {
      EXPECT_NEAR(component(reward, "total"), c.expectedRVer, 1e-12) << c.status;
      EXPECT_NEAR(reward.at("total").as_double(), c.expectedRVer - 1.0, 1e-12) << c.status;
    }
  }
}

TEST(RewardAssembly, WithoutAStructuralRewardTheTotalIsRVer) {
  const RewardConfig config;
  const json::object reward =
      assembleReward("ok", judgedOutcome(judged("ok", 3, 3, 2.0, 1.0, 0.0), config).outcome, std::nullopt, config)
          .toJson();
  EXPECT_TRUE(reward.at("r_str").is_null());
  EXPECT_DOUBLE_EQ(reward.at("total").as_double(), 1.0); // log2(2)
}

// Read once from the judge's answer: what the reward and the feedback use.
TEST(JudgeVerdict, ReadsTheStagesOfAnAnswer) {
  const JudgeVerdict verdict = JudgeVerdict::fromAnswer(
      json::parse(R"({"status": "wrong_answer", "correctness": {"passed": 3, "total": 5, "seconds": 0.25,
                      "failures": [{"sizes": {"n": 33}, "reason": "max error 2 above 1e-5",
                                    "first_mismatches": [[7, 1.0, 3.0]]}, {"sizes": {"n": 1}, "reason": "second"}]},
                      "timing": {"median_ms": 0.5, "cv": 0.01, "speedup_cpu": 12.0, "seconds": 0.4},
                      "sandbox": {"start_wait_seconds": 0.07},
                      "phases": {"load_seconds": 0.01, "judge_startup_seconds": 0.2, "note": "x"}})")
          .as_object());
  EXPECT_EQ(verdict.status, "wrong_answer");
  ASSERT_TRUE(verdict.correctness);
  EXPECT_EQ(verdict.correctness->passed, 3);
  EXPECT_EQ(verdict.correctness->total, 5);
  ASSERT_TRUE(verdict.correctness->firstFailure);
  EXPECT_EQ(verdict.correctness->firstFailure->reason, "max error 2 above 1e-5"); // the first one
  EXPECT_EQ(json::serialize(verdict.correctness->firstFailure->sizes), R"({"n":33})");
  EXPECT_EQ(json::serialize(*verdict.correctness->firstFailure->firstMismatches), "[[7,1E0,3E0]]");
  ASSERT_TRUE(verdict.timing);
  EXPECT_DOUBLE_EQ(verdict.timing->medianMs, 0.5);
  EXPECT_EQ(verdict.timing->speedupCpu, 12.0);
  EXPECT_FALSE(verdict.timing->speedupGpu); // no GPU baseline: no such speedup, not 0
  EXPECT_DOUBLE_EQ(verdict.workerStartSeconds, 0.07);
  EXPECT_EQ(verdict.phases.size(), 2u); // numbers only
  EXPECT_DOUBLE_EQ(verdict.phases.at("judge_startup_seconds"), 0.2);
}

TEST(JudgeVerdict, AnAnswerWithoutAStatusIsAHarnessError) {
  const JudgeVerdict verdict = JudgeVerdict::fromAnswer(json::object{{"error", "the judge died"}});
  EXPECT_EQ(verdict.status, "harness_error");
  EXPECT_EQ(verdict.error, "the judge died");
  EXPECT_FALSE(verdict.correctness);
  EXPECT_FALSE(verdict.timing);
  // Unscored: no correctness credit and no R_ver.
  const RewardConfig config;
  EXPECT_FALSE(assembleReward(verdict.status, judgedOutcome(verdict, config).outcome, 0.25, config).rVer);
}

// A speedup the reward cannot use (none over the configured baseline) leaves
// the speed term at its floor and says nothing of a baseline.
TEST(RewardAssembly, NoSpeedupOverTheConfiguredBaselineIsTheFloor) {
  RewardConfig config;
  config.baseline = SpeedupBaseline::Gpu;
  const JudgeVerdict verdict = JudgeVerdict::fromAnswer(
      json::parse(
          R"({"status": "ok", "correctness": {"passed": 2, "total": 2}, "timing": {"speedup_cpu": 9, "cv": 0}})")
          .as_object());
  const JudgedOutcome judgedRun = judgedOutcome(verdict, config);
  EXPECT_FALSE(judgedRun.speedup);
  EXPECT_TRUE(judgedRun.baseline.empty());
  const RewardStage reward = assembleReward("ok", judgedRun.outcome, std::nullopt, config);
  ASSERT_TRUE(reward.rVer);
  EXPECT_DOUBLE_EQ(reward.rVer->speed, -0.5); // s_min
}

// R_str measured from the task's baseline: the candidate's score less the
// baseline's; the total adds lambda times that; both scores are reported.
TEST(RewardAssembly, StructuralRewardIsMeasuredFromTheTasksBaseline) {
  RewardConfig config;
  config.lambdaStr = 0.5;
  const VerifiableOutcome outcome = judgedOutcome(judged("ok", 4, 4, 4.0, 1.0, 0.0), config).outcome;
  RewardStage reward = assembleReward("ok", outcome, 0.25, config); // log2(4) = 2
  EXPECT_DOUBLE_EQ(reward.total, 2.0 + 0.5 * 0.25);
  setStructuralReward(reward, 0.25, -0.75, config);
  EXPECT_DOUBLE_EQ(*reward.rStr, 1.0); // 0.25 - (-0.75): one unit better than the baseline
  EXPECT_DOUBLE_EQ(reward.total, 2.0 + 0.5 * 1.0);
  const json::object out = reward.toJson();
  EXPECT_DOUBLE_EQ(out.at("r_str").as_double(), 1.0);
  EXPECT_DOUBLE_EQ(out.at("r_str_absolute").as_double(), 0.25);
  EXPECT_DOUBLE_EQ(out.at("r_str_baseline").as_double(), -0.75);
  // No baseline score (no baseline.cu, or r_str_reference none): the absolute score.
  setStructuralReward(reward, 0.25, std::nullopt, config);
  EXPECT_DOUBLE_EQ(*reward.rStr, 0.25);
  EXPECT_TRUE(reward.toJson().at("r_str_baseline").is_null());
  // No candidate score (no ranker, no analysis): nothing, whatever the baseline's.
  setStructuralReward(reward, std::nullopt, -0.75, config);
  EXPECT_FALSE(reward.rStr);
  EXPECT_FALSE(reward.rStrBaseline);
  EXPECT_DOUBLE_EQ(reward.total, 2.0);
}

// A source the analysis cannot read gets the floor as R_str, no score of its
// own and a note; the total adds lambda times the floor.
TEST(RewardAssembly, AnUnreadableSourceGetsTheFloor) {
  RewardConfig config;
  config.lambdaStr = 0.5;
  RewardStage reward = assembleReward("compile_error", VerifiableOutcome{}, std::nullopt, config); // -3
  setUnreadableStructuralReward(reward, -2.0, config);
  EXPECT_DOUBLE_EQ(*reward.rStr, -2.0);
  EXPECT_FALSE(reward.rStrAbsolute);
  EXPECT_DOUBLE_EQ(reward.total, -3.0 + 0.5 * -2.0);
  const json::object out = reward.toJson();
  EXPECT_TRUE(out.at("r_str_absolute").is_null());
  EXPECT_NE(std::string(out.at("r_str_note").as_string()).find("could not read"), std::string::npos);
  EXPECT_FALSE(assembleReward("ok", VerifiableOutcome{}, 1.0, config).toJson().contains("r_str_note"));
}
