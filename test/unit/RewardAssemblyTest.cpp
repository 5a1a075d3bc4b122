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

json::object judged(const char *status, int passed, int total, double speedupCpu, double speedupGpu, double cv) {
  return json::parse(R"({"status": ")" + std::string(status) + R"(", "correctness": {"passed": )" +
                     std::to_string(passed) + R"(, "total": )" + std::to_string(total) +
                     R"(}, "timing": {"speedup_cpu": )" + std::to_string(speedupCpu) + R"(, "speedup_gpu": )" +
                     std::to_string(speedupGpu) + R"(, "cv": )" + std::to_string(cv) + "}}")
      .as_object();
}

double component(const json::object &reward, const char *name) {
  return reward.at("r_ver").as_object().at(name).to_number<double>();
}

} // namespace

TEST(RewardAssembly, AnOkEvaluationGetsEveryComponent) {
  RewardConfig config;
  config.baseline = SpeedupBaseline::Gpu;
  json::object result = judged("ok", 13, 13, 300.0, 4.0, 0.02);
  const VerifiableOutcome outcome = judgedOutcome(result, config);
  // The speedup over the GPU baseline is the one used, and the answer says so.
  EXPECT_EQ(outcome.speedup, 4.0);
  EXPECT_EQ(result.at("timing").as_object().at("speedup").as_double(), 4.0);
  EXPECT_EQ(result.at("timing").as_object().at("baseline").as_string(), "gpu");
  const json::object reward = assembleReward("ok", outcome, 0.5, config);
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
    json::object result = judged(c.status, c.passed, c.total, c.speedupCpu, 1.0, 0.1);
    const json::object reward = assembleReward(c.status, judgedOutcome(result, config), -1.0, config);
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
  json::object result = judged("ok", 3, 3, 2.0, 1.0, 0.0);
  const json::object reward = assembleReward("ok", judgedOutcome(result, config), std::nullopt, config);
  EXPECT_TRUE(reward.at("r_str").is_null());
  EXPECT_DOUBLE_EQ(reward.at("total").as_double(), 1.0); // log2(2)
}
