// Evaluation metrics against values computed by hand (binomials written out).
#include "cudaperf/contracts/EvalMetrics.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf;

TEST(EvalMetricsTest, PassAtKIsTheUnbiasedEstimator) {
  // n = 10, c = 3: pass@1 = 3/10; pass@5 = 1 - C(7,5)/C(10,5) = 1 - 21/252.
  EXPECT_NEAR(*passAtK(10, 3, 1), 0.3, 1e-12);
  EXPECT_NEAR(*passAtK(10, 3, 5), 1 - 21.0 / 252, 1e-12);
  // n = 10, c = 1: pass@10 = 1; c = 0: 0 for every k.
  EXPECT_EQ(*passAtK(10, 1, 10), 1.0);
  EXPECT_EQ(*passAtK(10, 0, 5), 0.0);
  // n - c < k: certain.
  EXPECT_EQ(*passAtK(5, 3, 3), 1.0);
  EXPECT_FALSE(passAtK(4, 1, 5).has_value());
  EXPECT_FALSE(passAtK(4, 5, 1).has_value());
}

TEST(EvalMetricsTest, SpeedupFastPAndTurns) {
  const std::vector<SampleOutcome> samples{{1, 2.0}, {2, 8.0}, {std::nullopt, std::nullopt}, {1, 0.5}};
  EXPECT_NEAR(*geomeanSpeedup(samples), std::cbrt(2.0 * 8.0 * 0.5), 1e-12);
  EXPECT_EQ(fastP(samples, 1.0), 0.5);  // 2.0 and 8.0
  EXPECT_EQ(fastP(samples, 2.0), 0.25); // 8.0 only: strictly faster
  EXPECT_EQ(firstTurnAccuracy(samples, 2), (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(cumulativeAccuracy(samples, 2), (std::vector<double>{0.5, 0.75}));
  EXPECT_FALSE(geomeanSpeedup({{std::nullopt, 3.0}}).has_value()); // a wrong answer's speed does not count
  const MeanStd m = meanStd({1.0, 2.0, 4.0});
  EXPECT_NEAR(m.mean, 7.0 / 3, 1e-12);
  EXPECT_NEAR(
      m.std,
      std::sqrt(((1 - 7.0 / 3) * (1 - 7.0 / 3) + (2 - 7.0 / 3) * (2 - 7.0 / 3) + (4 - 7.0 / 3) * (4 - 7.0 / 3)) / 2),
      1e-12);
  EXPECT_EQ(meanStd({5.0}).std, 0.0);
}

TEST(EvalMetricsTest, AgainstTorchCompileUsesThatSpeedupOnly) {
  // Against eager 2.0, 8.0, 0.5; against torch.compile 0.8, 4.0, none (no timing for that task).
  const std::vector<SampleOutcome> samples{
      {1, 2.0, 0.8}, {2, 8.0, 4.0}, {std::nullopt, std::nullopt, std::nullopt}, {1, 0.5, std::nullopt}};
  const auto compiled = againstTorchCompile(samples);
  EXPECT_NEAR(*geomeanSpeedup(compiled), std::sqrt(0.8 * 4.0), 1e-12);
  EXPECT_EQ(fastP(compiled, 1.0), 0.25); // 4.0 only, of all four samples
  EXPECT_EQ(fastP(samples, 1.0), 0.5);   // the originals are untouched
}
