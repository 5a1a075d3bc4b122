// Group-level rewards of one prompt's G completions: LEAP's rank reward and
// difficulty-conditioned pruning gate, and GRPO / Dr. GRPO advantages.
#pragma once

#include <optional>
#include <vector>

namespace cudaperf {

struct GroupOutcome {
  std::optional<int> passedTurn; // refinement turn (1, 2, ...) at which it first passed; nullopt = failed
  std::optional<double> speedup; // for the optional tie-break among passes of the same turn
};

// LEAP: R_i = (N_worse(o_i) - N_better(o_i)) / (G - 1) over the order
// first-turn pass > second-turn pass > ... > failure. With tieBreakBySpeedup,
// passes of the same turn are ordered by speedup (a missing speedup ranks
// below any measured one). G = 1 gives 0. Values lie in [-1, 1].
std::vector<double> rankRewards(const std::vector<GroupOutcome> &group, bool tieBreakBySpeedup = false);

// LEAP's difficulty-conditioned pruning: a group enters multi-turn
// refinement only if tau_min <= N_fail <= tau_max.
struct DcpGate {
  int tauMin = 1;
  int tauMax = 1 << 30;
  bool admits(int failures) const { return tauMin <= failures && failures <= tauMax; }
};

int countFailures(const std::vector<GroupOutcome> &group);

enum class AdvantageMode {
  Grpo,   // (r - mean) / (std + epsilon), std with Bessel's correction as TRL computes it
  DrGrpo, // r - mean (Dr. GRPO drops the std normalisation)
};

// Per-completion advantages of one group. Groups of one, and groups whose
// rewards are all equal, give zeros; non-finite rewards count as the group's
// lowest finite reward (0 if none), so the result is always finite.
std::vector<double> groupAdvantages(const std::vector<double> &rewards, AdvantageMode mode, double epsilon = 1e-4);

} // namespace cudaperf
