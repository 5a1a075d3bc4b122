// When the judge may stop timing: the median's interval worked out by hand.
#include "TimedCallCount.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

using cudaperf::judge::medianInterval;
using cudaperf::judge::medianOverFirstCalls;
using cudaperf::judge::TimedCallPolicy;
using cudaperf::judge::timingSettled;

namespace {

// 1, 2, ..., n in a shuffled order: rank r is the value r.
std::vector<double> ranks(int n) {
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), 1.0);
  std::shuffle(values.begin(), values.end(), std::mt19937(n));
  return values;
}

std::vector<double> repeated(std::initializer_list<std::pair<double, int>> runs) {
  std::vector<double> out;
  for (auto [value, count] : runs)
    out.insert(out.end(), count, value);
  return out;
}

} // namespace

TEST(TimedCallCount, TheMediansIntervalIsThePairOfOrderStatisticsTheBinomialGives) {
  // n = 10: 0.98 sqrt(10) = 3.099: ranks floor(1.90) = 1 and ceil(9.10) = 10.
  EXPECT_EQ(medianInterval(ranks(10)).low, 1);
  EXPECT_EQ(medianInterval(ranks(10)).high, 10);
  // n = 20: 4.383: floor(5.62) = 5, ceil(15.38) = 16.
  EXPECT_EQ(medianInterval(ranks(20)).low, 5);
  EXPECT_EQ(medianInterval(ranks(20)).high, 16);
  // n = 30: 5.368: floor(9.63) = 9, ceil(21.37) = 22.
  EXPECT_EQ(medianInterval(ranks(30)).low, 9);
  EXPECT_EQ(medianInterval(ranks(30)).high, 22);
  // One sample: both ends clamp to it; none: nothing.
  EXPECT_EQ(medianInterval({0.25}).low, 0.25);
  EXPECT_EQ(medianInterval({0.25}).high, 0.25);
  EXPECT_EQ(medianInterval({}).high, 0);
}

TEST(TimedCallCount, AQuietKernelStopsAtTheMinimumAndANoisyOneGoesOn) {
  const TimedCallPolicy policy; // 10 to 30 calls, half-width 0.5 %
  // The H200's vector_add: ten calls within 0.001 ms of 0.2395 (half-width 0.21 %).
  const auto quiet = repeated({{0.2390, 5}, {0.2400, 5}});
  EXPECT_TRUE(timingSettled(quiet, policy));
  // The same nine times: below the minimum, whatever their spread.
  EXPECT_FALSE(timingSettled(std::vector<double>(quiet.begin(), quiet.begin() + 9), policy));
  // 2 % apart (half-width 1 %): not settled until the maximum.
  const auto noisy = repeated({{0.2390, 5}, {0.2438, 5}});
  EXPECT_FALSE(timingSettled(noisy, policy));
  auto thirty = noisy;
  for (int i = 0; i < 2; ++i)
    thirty.insert(thirty.end(), noisy.begin(), noisy.end());
  EXPECT_FALSE(timingSettled(std::vector<double>(thirty.begin(), thirty.begin() + 29), policy));
  EXPECT_TRUE(timingSettled(thirty, policy));
}

TEST(TimedCallCount, OneSlowCallKeepsTheTimingGoingUntilTheIntervalLeavesItOut) {
  const TimedCallPolicy policy;
  // At 10 calls the interval is the whole range: a 0.30 ms call among 0.239 ms ones holds it open.
  auto calls = repeated({{0.2390, 9}, {0.30, 1}});
  EXPECT_FALSE(timingSettled(calls, policy));
  // By 20 calls the interval is ranks 5 to 16: the one slow call is outside it.
  calls.insert(calls.end(), 10, 0.2392);
  EXPECT_TRUE(timingSettled(calls, policy));
  // Of twenty calls, four slow ones are ranks 17-20, outside the interval; a fifth is rank 16, inside.
  auto five = repeated({{0.2390, 15}, {0.30, 5}});
  EXPECT_FALSE(timingSettled(five, policy));
  auto four = repeated({{0.2390, 16}, {0.30, 4}});
  EXPECT_TRUE(timingSettled(four, policy));
}

TEST(TimedCallCount, AFixedCountAndAZeroMedian) {
  // min = max: exactly that many calls, however quiet.
  const TimedCallPolicy fixed{10, 10, 0.005};
  EXPECT_FALSE(timingSettled(repeated({{0.2, 9}}), fixed));
  EXPECT_TRUE(timingSettled(repeated({{0.2, 5}, {0.4, 5}}), fixed));
  // A half-width of 0 asks for every call, even of identical times.
  EXPECT_FALSE(timingSettled(repeated({{0.2, 29}}), TimedCallPolicy{10, 30, 0.0}));
  EXPECT_TRUE(timingSettled(repeated({{0.2, 30}}), TimedCallPolicy{10, 30, 0.0}));
  // Calls of no time at all never settle before the maximum (no fraction of 0 to compare with).
  EXPECT_FALSE(timingSettled(repeated({{0.0, 12}}), TimedCallPolicy{}));
}

// A candidate stopped at 10 calls is compared with the baseline's first 10:
// a baseline whose clocks sagged over its later calls does not flatter it.
TEST(TimedCallCount, TheBaselinesMedianOverAsManyCallsAsTheCandidates) {
  // Ten calls at 1.00 ms, then twenty at 1.10 ms: all thirty's median is 1.10.
  auto baseline = repeated({{1.00, 10}, {1.10, 20}});
  EXPECT_DOUBLE_EQ(medianOverFirstCalls(baseline, 10, 1.10), 1.00);
  // The first 15: ten at 1.00 and five at 1.10, median the 8th: 1.00.
  EXPECT_DOUBLE_EQ(medianOverFirstCalls(baseline, 15, 1.10), 1.00);
  // 20: the 10th and 11th, (1.00 + 1.10) / 2.
  EXPECT_DOUBLE_EQ(medianOverFirstCalls(baseline, 20, 1.10), 1.05);
  // As many calls as it has, or more, or none known: the whole run's median as given.
  EXPECT_DOUBLE_EQ(medianOverFirstCalls(baseline, 30, 1.10), 1.10);
  EXPECT_DOUBLE_EQ(medianOverFirstCalls(baseline, 40, 1.10), 1.10);
  EXPECT_DOUBLE_EQ(medianOverFirstCalls({}, 10, 0.7), 0.7);
}
