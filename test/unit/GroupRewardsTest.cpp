// LEAP's rank reward and DCP gate, GRPO / Dr. GRPO advantages, against
// hand-computed values.
#include "cudaperf/contracts/GroupRewards.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace cudaperf;

namespace {
GroupOutcome pass(int turn, std::optional<double> speedup = std::nullopt) { return {turn, speedup}; }
GroupOutcome fail() { return {std::nullopt, std::nullopt}; }
} // namespace

TEST(RankReward, OrderFirstTurnThenLaterTurnsThenFailures) {
  // G = 4: turn-1 pass, turn-2 pass, failure, failure.
  auto rewards = rankRewards({pass(1), pass(2), fail(), fail()});
  ASSERT_EQ(rewards.size(), 4u);
  EXPECT_DOUBLE_EQ(rewards[0], (3 - 0) / 3.0); // better than all three
  EXPECT_DOUBLE_EQ(rewards[1], (2 - 1) / 3.0);
  EXPECT_DOUBLE_EQ(rewards[2], (0 - 2) / 3.0); // ties with the other failure
  EXPECT_DOUBLE_EQ(rewards[3], (0 - 2) / 3.0);
}

TEST(RankReward, TiesAndTieBreakBySpeedup) {
  std::vector<GroupOutcome> group = {pass(1, 2.0), pass(1, 4.0), pass(1), fail()};
  auto plain = rankRewards(group);
  EXPECT_DOUBLE_EQ(plain[0], 1.0 / 3.0); // only better than the failure
  EXPECT_DOUBLE_EQ(plain[1], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(plain[3], -1.0);
  auto broken = rankRewards(group, true);
  EXPECT_DOUBLE_EQ(broken[1], 1.0);           // fastest pass
  EXPECT_DOUBLE_EQ(broken[0], (2 - 1) / 3.0); // beats the unmeasured pass and the failure
  EXPECT_DOUBLE_EQ(broken[2], (1 - 2) / 3.0); // missing speedup ranks below measured ones
  EXPECT_DOUBLE_EQ(broken[3], -1.0);
}

TEST(RankReward, SmallAndUniformGroups) {
  EXPECT_EQ(rankRewards({}).size(), 0u);
  EXPECT_DOUBLE_EQ(rankRewards({pass(1)})[0], 0.0);
  for (double r : rankRewards({fail(), fail(), fail()}))
    EXPECT_DOUBLE_EQ(r, 0.0);
  for (double r : rankRewards({pass(2), pass(2)}))
    EXPECT_DOUBLE_EQ(r, 0.0);
}

TEST(DcpGate, AdmitsOnlyGroupsOfMiddleDifficulty) {
  DcpGate gate{2, 12};
  std::vector<GroupOutcome> group(16, pass(1));
  EXPECT_EQ(countFailures(group), 0);
  EXPECT_FALSE(gate.admits(countFailures(group))); // too easy
  group[0] = fail();
  group[1] = fail();
  EXPECT_TRUE(gate.admits(countFailures(group)));
  EXPECT_TRUE(gate.admits(12));
  EXPECT_FALSE(gate.admits(13)); // too hard: more turns rarely recover it
  EXPECT_TRUE(DcpGate{}.admits(1));
  EXPECT_FALSE(DcpGate{}.admits(0));
}

TEST(GroupAdvantages, GrpoNormalisesByStd) {
  // rewards 1, 2, 3: mean 2, sample std 1.
  auto advantages = groupAdvantages({1.0, 2.0, 3.0}, AdvantageMode::Grpo, 0.0);
  EXPECT_DOUBLE_EQ(advantages[0], -1.0);
  EXPECT_DOUBLE_EQ(advantages[1], 0.0);
  EXPECT_DOUBLE_EQ(advantages[2], 1.0);
  auto withEpsilon = groupAdvantages({1.0, 2.0, 3.0}, AdvantageMode::Grpo, 1e-4);
  EXPECT_NEAR(withEpsilon[2], 1.0 / (1.0 + 1e-4), 1e-12);
}

TEST(GroupAdvantages, DrGrpoOnlyCentres) {
  auto advantages = groupAdvantages({0.0, 0.0, 3.0, 1.0}, AdvantageMode::DrGrpo);
  EXPECT_DOUBLE_EQ(advantages[0], -1.0);
  EXPECT_DOUBLE_EQ(advantages[2], 2.0);
  EXPECT_DOUBLE_EQ(advantages[3], 0.0);
}

TEST(GroupAdvantages, DegenerateGroupsGiveZeros) {
  for (double a : groupAdvantages({0.7, 0.7, 0.7}, AdvantageMode::Grpo))
    EXPECT_DOUBLE_EQ(a, 0.0);
  EXPECT_DOUBLE_EQ(groupAdvantages({5.0}, AdvantageMode::Grpo)[0], 0.0);
  EXPECT_TRUE(groupAdvantages({}, AdvantageMode::DrGrpo).empty());
  // A NaN reward counts as the lowest finite one: {-1, -1, 1} -> mean -1/3.
  auto advantages = groupAdvantages({std::nan(""), -1.0, 1.0}, AdvantageMode::DrGrpo);
  EXPECT_DOUBLE_EQ(advantages[0], -1.0 + 1.0 / 3.0);
  for (double a : groupAdvantages({std::numeric_limits<double>::infinity(), std::nan("")}, AdvantageMode::Grpo))
    EXPECT_TRUE(std::isfinite(a));
}
