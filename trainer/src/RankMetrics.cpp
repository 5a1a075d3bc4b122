#include "cudaperf/trainer/RankMetrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace cudaperf {

namespace {

std::vector<double> averageRanks(const std::vector<double> &values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    for (std::size_t k = i; k <= j; ++k)
      ranks[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    i = j + 1;
  }
  return ranks;
}

double pearson(const std::vector<double> &x, const std::vector<double> &y) {
  const double n = static_cast<double>(x.size());
  const double meanX = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double meanY = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double xy = 0, xx = 0, yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xy += (x[i] - meanX) * (y[i] - meanY);
    xx += (x[i] - meanX) * (x[i] - meanX);
    yy += (y[i] - meanY) * (y[i] - meanY);
  }
  return xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : 0.0;
}

void checkSizes(const std::vector<double> &x, const std::vector<double> &y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("rank metrics need two equally long lists of two or more values");
}

} // namespace

double spearman(const std::vector<double> &x, const std::vector<double> &y) {
  checkSizes(x, y);
  return pearson(averageRanks(x), averageRanks(y));
}

double kendallTauB(const std::vector<double> &x, const std::vector<double> &y) {
  checkSizes(x, y);
  double concordant = 0, discordant = 0, tiedX = 0, tiedY = 0, total = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      ++total;
      if (dx == 0)
        ++tiedX;
      if (dy == 0)
        ++tiedY;
      if (dx * dy > 0)
        ++concordant;
      else if (dx * dy < 0)
        ++discordant;
    }
  const double denominator = std::sqrt((total - tiedX) * (total - tiedY));
  return denominator > 0 ? (concordant - discordant) / denominator : 0.0;
}

RankAgreement rankAgreement(const std::vector<double> &scores, const std::vector<double> &speedups, double tieRatio) {
  RankAgreement agreement;
  agreement.spearman = spearman(scores, speedups);
  agreement.kendall = kendallTauB(scores, speedups);
  double right = 0;
  for (std::size_t i = 0; i < scores.size(); ++i)
    for (std::size_t j = 0; j < scores.size(); ++j) {
      if (!(speedups[i] > tieRatio * speedups[j]))
        continue; // i is not clearly faster than j
      ++agreement.pairs;
      right += scores[i] > scores[j] ? 1.0 : scores[i] == scores[j] ? 0.5 : 0.0;
    }
  agreement.pairwiseAccuracy = agreement.pairs ? right / static_cast<double>(agreement.pairs) : 0.5;
  return agreement;
}

} // namespace cudaperf
