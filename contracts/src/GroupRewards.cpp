#include "cudaperf/contracts/GroupRewards.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cudaperf {

namespace {

// Negative when a ranks above b, positive when below, 0 when tied.
int compareOutcomes(const GroupOutcome &a, const GroupOutcome &b, bool tieBreakBySpeedup) {
  const long turnA = a.passedTurn ? *a.passedTurn : std::numeric_limits<long>::max();
  const long turnB = b.passedTurn ? *b.passedTurn : std::numeric_limits<long>::max();
  if (turnA != turnB)
    return turnA < turnB ? -1 : 1;
  if (!tieBreakBySpeedup || !a.passedTurn)
    return 0;
  auto speed = [](const GroupOutcome &o) {
    return o.speedup && std::isfinite(*o.speedup) ? *o.speedup : -std::numeric_limits<double>::infinity();
  };
  const double speedA = speed(a), speedB = speed(b);
  if (speedA == speedB)
    return 0;
  return speedA > speedB ? -1 : 1;
}

} // namespace

std::vector<double> rankRewards(const std::vector<GroupOutcome> &group, bool tieBreakBySpeedup) {
  const std::size_t size = group.size();
  std::vector<double> rewards(size, 0.0);
  if (size < 2)
    return rewards;
  for (std::size_t i = 0; i < size; ++i) {
    long worse = 0, better = 0;
    for (std::size_t j = 0; j < size; ++j) {
      if (i == j)
        continue;
      const int order = compareOutcomes(group[i], group[j], tieBreakBySpeedup);
      worse += order < 0;
      better += order > 0;
    }
    rewards[i] = static_cast<double>(worse - better) / static_cast<double>(size - 1);
  }
  return rewards;
}

int countFailures(const std::vector<GroupOutcome> &group) {
  return static_cast<int>(
      std::count_if(group.begin(), group.end(), [](const GroupOutcome &o) { return !o.passedTurn; }));
}

std::vector<double> groupAdvantages(const std::vector<double> &rewards, AdvantageMode mode, double epsilon) {
  const std::size_t size = rewards.size();
  std::vector<double> advantages(size, 0.0);
  if (size < 2)
    return advantages;
  double lowest = std::numeric_limits<double>::infinity();
  for (double r : rewards)
    if (std::isfinite(r))
      lowest = std::min(lowest, r);
  if (!std::isfinite(lowest))
    lowest = 0.0;
  std::vector<double> clean(size);
  for (std::size_t i = 0; i < size; ++i)
    clean[i] = std::isfinite(rewards[i]) ? rewards[i] : lowest;

  // All-equal groups carry no signal: exact zeros, not rounding noise / epsilon.
  if (std::equal(clean.begin() + 1, clean.end(), clean.begin()))
    return advantages;
  double mean = 0;
  for (double r : clean)
    mean += r;
  mean /= static_cast<double>(size);
  double squares = 0;
  for (double r : clean)
    squares += (r - mean) * (r - mean);
  const double std = std::sqrt(squares / static_cast<double>(size - 1));
  for (std::size_t i = 0; i < size; ++i) {
    const double centred = clean[i] - mean;
    advantages[i] = mode == AdvantageMode::Grpo ? centred / (std + epsilon) : centred;
  }
  return advantages;
}

} // namespace cudaperf
