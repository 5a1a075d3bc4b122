#include "cudaperf/trainer/TrajectoryAdvantages.h"

#include <algorithm>
#include <stdexcept>

namespace cudaperf::trainer {

TrajectoryAdvantage parseTrajectoryAdvantage(const std::string &name) {
  if (name == "grpo")
    return TrajectoryAdvantage::Grpo;
  if (name == "dr_grpo")
    return TrajectoryAdvantage::DrGrpo;
  if (name == "rank")
    return TrajectoryAdvantage::Rank;
  throw std::invalid_argument("advantage: grpo, dr_grpo or rank, not '" + name + "'");
}

std::vector<std::vector<double>> trajectoryAdvantages(const std::vector<TrajectoryOutcomes> &group,
                                                      const AdvantageOptions &options) {
  std::vector<std::vector<double>> out(group.size());
  if (options.mode == TrajectoryAdvantage::Rank) {
    std::vector<GroupOutcome> outcomes;
    for (const auto &trajectory : group) {
      GroupOutcome outcome;
      for (std::size_t t = 0; t < trajectory.size(); ++t)
        if (trajectory[t].passed) {
          outcome.passedTurn = static_cast<int>(t) + 1;
          outcome.speedup = trajectory[t].speedup;
          break;
        }
      outcomes.push_back(outcome);
    }
    const auto ranks = rankRewards(outcomes, options.rankTieBreakBySpeedup);
    for (std::size_t i = 0; i < group.size(); ++i)
      out[i].assign(group[i].size(), ranks[i]);
    return out;
  }
  // Discounted returns of each trajectory's own turns.
  std::vector<std::vector<double>> returns(group.size());
  std::size_t longest = 0;
  for (std::size_t i = 0; i < group.size(); ++i) {
    returns[i].resize(group[i].size());
    double next = 0;
    for (std::size_t t = group[i].size(); t-- > 0;) {
      next = group[i][t].reward + (t + 1 < group[i].size() ? options.gamma * next : 0.0);
      returns[i][t] = next;
    }
    out[i].assign(group[i].size(), 0.0);
    longest = std::max(longest, group[i].size());
  }
  const AdvantageMode mode = options.mode == TrajectoryAdvantage::Grpo ? AdvantageMode::Grpo : AdvantageMode::DrGrpo;
  for (std::size_t t = 0; t < longest; ++t) {
    std::vector<double> rewards;
    std::vector<std::size_t> who;
    for (std::size_t i = 0; i < group.size(); ++i)
      if (t < group[i].size()) {
        rewards.push_back(returns[i][t]);
        who.push_back(i);
      }
    const auto advantages = groupAdvantages(rewards, mode, options.epsilon);
    for (std::size_t k = 0; k < who.size(); ++k)
      out[who[k]][t] = advantages[k];
  }
  return out;
}

bool takesAnotherTurn(const std::vector<TrajectoryOutcomes> &group, int turnsDone, int maxTurns, const DcpGate &gate) {
  if (turnsDone >= maxTurns)
    return false;
  int failures = 0;
  for (const auto &trajectory : group)
    failures += trajectory.empty() || !trajectory.back().passed;
  return failures > 0 && gate.admits(failures);
}

bool allAdvantagesZero(const std::vector<std::vector<double>> &advantages) {
  for (const auto &trajectory : advantages)
    for (double a : trajectory)
      if (a != 0)
        return false;
  return true;
}

} // namespace cudaperf::trainer
