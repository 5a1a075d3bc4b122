// R_ver against hand-computed values (DESIGN.md section 4, CudaPerf's weights).
#include "cudaperf/contracts/VerifiableReward.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace cudaperf;

namespace {
VerifiableOutcome passing(double speedup, double cv) {
  VerifiableOutcome outcome;
  outcome.compiled = true;
  outcome.testsPassed = 5;
  outcome.testsTotal = 5;
  outcome.speedup = speedup;
  outcome.cv = cv;
  return outcome;
}
} // namespace

TEST(VerifiableReward, CompileFailureIsMinusAlphaComp) {
  VerifiableOutcome outcome;
  auto reward = verifiableReward(outcome, RewardConfig{});
  EXPECT_DOUBLE_EQ(reward.compile, -3.0);
  EXPECT_DOUBLE_EQ(reward.total, -3.0);
  EXPECT_DOUBLE_EQ(reward.correctness, 0.0);
  EXPECT_FALSE(reward.allPassed);
}

TEST(VerifiableReward, PartialCorrectnessIsProportional) {
  VerifiableOutcome outcome;
  outcome.compiled = true;
  outcome.testsPassed = 3;
  outcome.testsTotal = 4;
  outcome.speedup = 8.0; // ignored: not all tests pass
  auto reward = verifiableReward(outcome, RewardConfig{});
  EXPECT_DOUBLE_EQ(reward.correctness, -2.0 * 0.25);
  EXPECT_DOUBLE_EQ(reward.speed, 0.0);
  EXPECT_DOUBLE_EQ(reward.total, -0.5);
}

TEST(VerifiableReward, AllPassGetsLogSpeedupMinusVariance) {
  // log2(4) = 2; 1.0 * 2 - 0.5 * 0.02 = 1.99
  auto reward = verifiableReward(passing(4.0, 0.02), RewardConfig{});
  EXPECT_DOUBLE_EQ(reward.correctness, 0.0);
  EXPECT_DOUBLE_EQ(reward.speed, 2.0);
  EXPECT_DOUBLE_EQ(reward.variance, -0.01);
  EXPECT_DOUBLE_EQ(reward.total, 1.99);
  EXPECT_TRUE(reward.allPassed);
}

TEST(VerifiableReward, SpeedupIsClipped) {
  EXPECT_DOUBLE_EQ(verifiableReward(passing(1024.0, 0), RewardConfig{}).speed, 4.0); // log2 = 10 -> 4
  EXPECT_DOUBLE_EQ(verifiableReward(passing(0.25, 0), RewardConfig{}).speed, -0.5);  // log2 = -2 -> -0.5
  EXPECT_DOUBLE_EQ(verifiableReward(passing(std::sqrt(2.0), 0), RewardConfig{}).speed, 0.5);
}

TEST(VerifiableReward, DegenerateInputsStayFinite) {
  EXPECT_DOUBLE_EQ(verifiableReward(passing(0.0, 0), RewardConfig{}).speed, -0.5);
  EXPECT_DOUBLE_EQ(verifiableReward(passing(std::nan(""), 0), RewardConfig{}).speed, -0.5);
  EXPECT_DOUBLE_EQ(verifiableReward(passing(std::numeric_limits<double>::infinity(), 0), RewardConfig{}).speed, -0.5);
  EXPECT_DOUBLE_EQ(verifiableReward(passing(2.0, std::nan("")), RewardConfig{}).variance, 0.0);
  EXPECT_DOUBLE_EQ(verifiableReward(passing(2.0, -1.0), RewardConfig{}).variance, 0.0);
  VerifiableOutcome noTests;
  noTests.compiled = true;
  auto reward = verifiableReward(noTests, RewardConfig{});
  EXPECT_DOUBLE_EQ(reward.correctness, -2.0);
  EXPECT_FALSE(reward.allPassed);
  VerifiableOutcome missingSpeedup = passing(1.0, 0);
  missingSpeedup.speedup.reset();
  EXPECT_DOUBLE_EQ(verifiableReward(missingSpeedup, RewardConfig{}).speed, -0.5);
}

TEST(VerifiableReward, WeightsAreConfigurable) {
  RewardConfig config;
  config.alphaSpeed = 2.0;
  config.alphaCv = 1.0;
  config.speedupMax = 1.0;
  auto reward = verifiableReward(passing(8.0, 0.1), config); // clip(3, -0.5, 1) = 1
  EXPECT_DOUBLE_EQ(reward.total, 2.0 - 0.1);
}

TEST(CombinedReward, AddsWeightedStructuralReward) {
  RewardConfig config;
  EXPECT_DOUBLE_EQ(combinedReward(1.5, 0.25, config, true), 1.75);
  config.lambdaStr = 0.5;
  EXPECT_DOUBLE_EQ(combinedReward(1.5, 0.25, config, true), 1.625);
  EXPECT_DOUBLE_EQ(combinedReward(1.5, std::nan(""), config, true), 1.5);
  EXPECT_DOUBLE_EQ(combinedReward(1.5, -0.5, config, true), 1.25); // a correct answer's poor shape costs
}

TEST(CombinedReward, AFailureTakesOnlyTheCostOfItsStructure) {
  RewardConfig config; // lambda 1
  // The held-out evaluation's case: a compile error the ranker scored +2.13 took -0.87; now the penalty.
  EXPECT_DOUBLE_EQ(combinedReward(-3.0, 2.13, config, false), -3.0);
  EXPECT_DOUBLE_EQ(appliedStructuralReward(2.13, config, false), 0.0);
  // A crash on purpose (no test passed) with a kernel-like source: -2, not -2 + 2.13.
  EXPECT_DOUBLE_EQ(combinedReward(-2.0, 2.13, config, false), -2.0);
  // Worse structure still ranks lower among failures: -3 + 1 * -1.5.
  EXPECT_DOUBLE_EQ(combinedReward(-3.0, -1.5, config, false), -4.5);
  EXPECT_DOUBLE_EQ(combinedReward(-3.0, std::nan(""), config, false), -3.0);
  // CudaPerf's formula on request: -3 + 2.13.
  config.structureCreditWhenFailed = true;
  EXPECT_DOUBLE_EQ(combinedReward(-3.0, 2.13, config, false), -3.0 + 2.13);
}
