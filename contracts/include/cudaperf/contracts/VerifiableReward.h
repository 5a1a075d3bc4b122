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
  // CudaPerf adds R_str to every answer, one that did not compile too. Off
  // (the default), an answer with the compile penalty (a failed compile, or
  // a rejection, which is scored like one) takes only R_str's negative part:
  // a hack or a non-compiling source with a kernel-like shape never earns
  // structure credit (issue 16's held-out evaluation: 72 compile errors with
  // R_str from -3.45 to +2.13, one scoring -0.87 where the penalty is -3).
  bool structureCreditWithoutCompile = false;
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
// answer that did not compile (`compiled` false: R_ver has the compile
// penalty) min(R_str, 0) unless config.structureCreditWithoutCompile.
double combinedReward(double rVer, double rStr, const RewardConfig &config, bool compiled);

// What of R_str enters the total: the rule of combinedReward.
double appliedStructuralReward(double rStr, const RewardConfig &config, bool compiled);

} // namespace cudaperf
