// From one group's multi-turn outcomes to per-turn advantages, and LEAP's
// difficulty-conditioned pruning of which groups get another turn. The
// formulas (rank reward, DCP gate, GRPO / Dr. GRPO normalisation) are the
// contracts library's; this file only arranges turns. No LibTorch here.
//
//   advantage = rank:  A_i = LEAP rank reward of trajectory i over (turn of
//                      first pass, speedup tie-break), the same for all its turns;
//   advantage = grpo | dr_grpo: turn returns G_it = r_it + gamma * G_i(t+1) over
//                      trajectory i's own turns; A_it = group advantage of G_it
//                      among the trajectories that took turn t.
#pragma once

#include "cudaperf/contracts/GroupRewards.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::trainer {

enum class TrajectoryAdvantage { Grpo, DrGrpo, Rank };
TrajectoryAdvantage parseTrajectoryAdvantage(const std::string &name); // grpo | dr_grpo | rank

struct TurnOutcome {
  double reward = 0; // the daemon's total for this turn's attempt
  bool passed = false;
  std::optional<double> speedup;
};

// One trajectory: its turns in order (it stops after its first pass, or when its group is pruned).
using TrajectoryOutcomes = std::vector<TurnOutcome>;

struct AdvantageOptions {
  TrajectoryAdvantage mode = TrajectoryAdvantage::Grpo;
  double gamma = 1.0;
  bool rankTieBreakBySpeedup = true;
  double epsilon = 1e-4;
};

// advantages[i][t] for trajectory i, turn t (0-based).
std::vector<std::vector<double>> trajectoryAdvantages(const std::vector<TrajectoryOutcomes> &group,
                                                      const AdvantageOptions &options);

// Whether a group takes another turn: turns left, and LEAP's gate on the
// number of trajectories that have not passed yet.
bool takesAnotherTurn(const std::vector<TrajectoryOutcomes> &group, int turnsDone, int maxTurns, const DcpGate &gate);

// A group whose advantages are all zero teaches nothing (every reward equal):
// filtered out of the batch, counted in frac_reward_zero_std.
bool allAdvantagesZero(const std::vector<std::vector<double>> &advantages);

} // namespace cudaperf::trainer
