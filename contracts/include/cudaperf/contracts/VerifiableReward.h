// CudaPerf's verifiable reward R_ver and the combined reward R = R_ver +
// lambda_str * R_str (DESIGN.md section 4). Every component is returned, not
// only the sum, so trainers can log and ablate them.
#pragma once

#include <optional>

namespace cudaperf {

enum class SpeedupBaseline { Cpu, Gpu }; // sequential C reference, or the task's baseline.cu

struct RewardConfig {
  double alphaComp = 3.0;   // compile failure penalty
  double alphaWrong = 2.0;  // correctness penalty per fraction of failed tests
  double alphaSpeed = 1.0;  // weight of the clipped log2 speedup
  double alphaCv = 0.5;     // run-time variance penalty per unit of coefficient of variation
  double speedupMin = -0.5; // s_min: clip of log2(speedup)
  double speedupMax = 4.0;  // s_max
  double lambdaStr = 1.0;   // weight of the structural reward
  // CudaPerf adds R_str to every answer, failed ones too. Off (the
  // default), an answer that did not pass every test (a failed compile, a
  // rejection, which is scored like one, a wrong answer, a crash, a timeout)
  // takes only R_str's negative part: structure earns credit only beside a
  // correct answer, so no failure, a hack least of all, gains by reading like
  // a good kernel (issue 16's held-out evaluation: 72 compile errors with
  // R_str from -3.45 to +2.13, one totalling -0.87 where the penalty is -3;
  // a crash on purpose would have taken -2 + 2.13).
  bool structureCreditWhenFailed = false;
  SpeedupBaseline baseline = SpeedupBaseline::Cpu;
};

struct VerifiableOutcome {
  bool compiled = false;
  int testsPassed = 0;
  int testsTotal = 0;
  std::optional<double> speedup; // baseline time / candidate time, when timed
  double cv = 0;                 // coefficient of variation of the timing samples
};

struct VerifiableReward {
  double compile = 0;     // -alpha_comp on compile failure, else 0
  double correctness = 0; // -alpha_wrong * failed / total
  double speed = 0;       // alpha_speed * clip(log2(speedup), s_min, s_max) when all tests pass
  double variance = 0;    // -alpha_cv * cv when all tests pass
  double total = 0;
  bool allPassed = false;
};

// Edge cases, all finite: zero tests count as all failed (no evidence of
// correctness); a missing, non-positive or non-finite speedup clips to s_min;
// a negative or non-finite CV counts as 0.
VerifiableReward verifiableReward(const VerifiableOutcome &outcome, const RewardConfig &config);

// R = R_ver + lambda_str * R_str (a non-finite R_str counts as 0); for an
// answer that did not pass every test (`passed` false) min(R_str, 0) unless
// config.structureCreditWhenFailed.
double combinedReward(double rVer, double rStr, const RewardConfig &config, bool passed);

// What of R_str enters the total: the rule of combinedReward.
double appliedStructuralReward(double rStr, const RewardConfig &config, bool passed);

} // namespace cudaperf
