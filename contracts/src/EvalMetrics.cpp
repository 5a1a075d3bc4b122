#include "cudaperf/contracts/EvalMetrics.h"

#include <cmath>

namespace cudaperf {

std::optional<double> passAtK(int n, int c, int k) {
  if (n <= 0 || k <= 0 || k > n || c < 0 || c > n)
    return std::nullopt;
  if (n - c < k)
    return 1.0; // every k-subset holds a correct sample
  double allWrong = 1.0;
  for (int i = n - c + 1; i <= n; ++i)
    allWrong *= 1.0 - static_cast<double>(k) / i;
  return 1.0 - allWrong;
}

std::optional<double> geomeanSpeedup(const std::vector<SampleOutcome> &samples) {
  double logs = 0;
  int count = 0;
  for (const auto &s : samples)
    if (s.passedTurn && s.speedup && *s.speedup > 0) {
      logs += std::log(*s.speedup);
      ++count;
    }
  return count ? std::optional<double>(std::exp(logs / count)) : std::nullopt;
}

std::vector<SampleOutcome> againstTorchCompile(const std::vector<SampleOutcome> &samples) {
  std::vector<SampleOutcome> out = samples;
  for (auto &sample : out)
    sample.speedup = sample.speedupVsTorchCompile;
  return out;
}

double fastP(const std::vector<SampleOutcome> &samples, double p) {
  if (samples.empty())
    return 0;
  int fast = 0;
  for (const auto &s : samples)
    fast += s.passedTurn && s.speedup && *s.speedup > p;
  return static_cast<double>(fast) / samples.size();
}

namespace {

std::vector<double> accuracyByTurn(const std::vector<SampleOutcome> &samples, int turns, bool cumulative) {
  std::vector<double> out(turns > 0 ? turns : 0, 0.0);
  if (samples.empty())
    return out;
  for (int t = 1; t <= turns; ++t) {
    int correct = 0;
    for (const auto &s : samples)
      correct += s.passedTurn && (cumulative ? *s.passedTurn <= t : *s.passedTurn == t);
    out[t - 1] = static_cast<double>(correct) / samples.size();
  }
  return out;
}

} // namespace

std::vector<double> firstTurnAccuracy(const std::vector<SampleOutcome> &samples, int turns) {
  return accuracyByTurn(samples, turns, false);
}

std::vector<double> cumulativeAccuracy(const std::vector<SampleOutcome> &samples, int turns) {
  return accuracyByTurn(samples, turns, true);
}

MeanStd meanStd(const std::vector<double> &values) {
  MeanStd out;
  if (values.empty())
    return out;
  for (double v : values)
    out.mean += v;
  out.mean /= values.size();
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values)
      squares += (v - out.mean) * (v - out.mean);
    out.std = std::sqrt(squares / (values.size() - 1));
  }
  return out;
}

} // namespace cudaperf
