// How well a scorer orders one task's variants by measured speed.
#pragma once

#include <vector>

namespace cudaperf {

struct RankAgreement {
  double spearman = 0;         // Pearson correlation of the ranks (ties: average ranks)
  double kendall = 0;          // tau-b
  double pairwiseAccuracy = 0; // over pairs whose speeds differ by more than the tie ratio; equal scores count 1/2
  std::size_t pairs = 0;       // pairs behind pairwiseAccuracy
};

// A scorer that gives every variant the same score orders nothing: its
// Spearman and Kendall are 0 (not undefined), its pairwise accuracy 0.5.
RankAgreement rankAgreement(const std::vector<double> &scores, const std::vector<double> &speedups, double tieRatio);

double spearman(const std::vector<double> &x, const std::vector<double> &y);
double kendallTauB(const std::vector<double> &x, const std::vector<double> &y);

} // namespace cudaperf
