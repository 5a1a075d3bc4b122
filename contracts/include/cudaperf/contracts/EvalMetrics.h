// Evaluation metrics of a policy on the task suite (DESIGN §6, `eval`):
// the unbiased pass@k estimator, the geometric-mean speedup over correct
// samples, fast_p, accuracy per refinement turn, and mean ± std over seeds.
#pragma once

#include <optional>
#include <vector>

namespace cudaperf {

// Unbiased pass@k from n samples of which c are correct (Chen et al. 2021):
// 1 - C(n - c, k) / C(n, k), computed as 1 - prod_{i = n-c+1}^{n} (1 - k / i).
// k > n has no estimate (nullopt).
std::optional<double> passAtK(int n, int c, int k);

struct SampleOutcome {
  std::optional<int> passedTurn; // first turn (1, 2, ...) at which it was correct; nullopt: never
  std::optional<double> speedup; // of its correct answer, over the task's baseline
  // An imported KernelBench task's speedup against torch.compile, where the task has that timing.
  std::optional<double> speedupVsTorchCompile;
};

// The same samples with their speedup against torch.compile as the speedup
// (nullopt where there is none), for fast_p and the geomean against it.
std::vector<SampleOutcome> againstTorchCompile(const std::vector<SampleOutcome> &samples);

// exp(mean(log speedup)) over the correct samples with a speedup; nullopt without any.
std::optional<double> geomeanSpeedup(const std::vector<SampleOutcome> &samples);

// Fraction of all samples that are correct and faster than p times the baseline (speedup > p).
double fastP(const std::vector<SampleOutcome> &samples, double p);

// accuracy[t - 1]: fraction of samples correct at exactly turn 1 (t = 1), or,
// cumulatively, by turn t.
std::vector<double> firstTurnAccuracy(const std::vector<SampleOutcome> &samples, int turns);
std::vector<double> cumulativeAccuracy(const std::vector<SampleOutcome> &samples, int turns);

struct MeanStd {
  double mean = 0, std = 0; // std with Bessel's correction; 0 for one value
};
MeanStd meanStd(const std::vector<double> &values);

} // namespace cudaperf
