#include "cudaperf/contracts/VerifiableReward.h"

#include <algorithm>
#include <cmath>

namespace cudaperf {

VerifiableReward verifiableReward(const VerifiableOutcome &outcome, const RewardConfig &config) {
  VerifiableReward reward;
  if (!outcome.compiled) {
    reward.compile = -config.alphaComp;
    reward.total = reward.compile;
    return reward;
  }
  const int total = std::max(outcome.testsTotal, 0);
  const int passed = std::clamp(outcome.testsPassed, 0, total);
  const double failedFraction = total > 0 ? static_cast<double>(total - passed) / total : 1.0;
  reward.correctness = -config.alphaWrong * failedFraction;
  reward.allPassed = total > 0 && passed == total;
  if (reward.allPassed) {
    double logSpeedup = config.speedupMin;
    if (outcome.speedup && std::isfinite(*outcome.speedup) && *outcome.speedup > 0)
      logSpeedup = std::clamp(std::log2(*outcome.speedup), config.speedupMin, config.speedupMax);
    reward.speed = config.alphaSpeed * logSpeedup;
    const double cv = std::isfinite(outcome.cv) && outcome.cv > 0 ? outcome.cv : 0.0;
    reward.variance = -config.alphaCv * cv;
  }
  reward.total = reward.compile + reward.correctness + reward.speed + reward.variance;
  return reward;
}

double appliedStructuralReward(double rStr, const RewardConfig &config, bool passed) {
  const double finite = std::isfinite(rStr) ? rStr : 0.0;
  return passed || config.structureCreditWhenFailed ? finite : std::min(finite, 0.0);
}

double combinedReward(double rVer, double rStr, const RewardConfig &config, bool passed) {
  return rVer + config.lambdaStr * appliedStructuralReward(rStr, config, passed);
}

} // namespace cudaperf
