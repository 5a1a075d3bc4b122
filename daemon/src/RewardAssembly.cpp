#include "cudaperf/daemon/RewardAssembly.h"

#include <algorithm>

namespace cudaperf {

namespace json = boost::json;

JudgedOutcome judgedOutcome(const JudgeVerdict &verdict, const RewardConfig &config) {
  JudgedOutcome judged;
  VerifiableOutcome &outcome = judged.outcome;
  outcome.compiled = true;
  if (verdict.correctness) {
    outcome.testsPassed = verdict.correctness->passed;
    outcome.testsTotal = verdict.correctness->total;
  }
  if (verdict.timing) {
    const bool cpu = config.baseline == SpeedupBaseline::Cpu;
    outcome.speedup = cpu ? verdict.timing->speedupCpu : verdict.timing->speedupGpu;
    if (outcome.speedup) {
      judged.speedup = outcome.speedup;
      judged.baseline = cpu ? "cpu" : "gpu";
    }
    outcome.cv = verdict.timing->cv;
  }
  if (verdict.status != "ok" && verdict.status != "wrong_answer") // a rejected or broken run earns no credit
    outcome.testsPassed = 0, outcome.testsTotal = std::max(outcome.testsTotal, 1);
  return judged;
}

RewardStage assembleReward(const std::string &status, VerifiableOutcome outcome, std::optional<double> rStr,
                           const RewardConfig &config) {
  RewardStage reward;
  if (status != "no_gpu" && status != "harness_error" && status != "bad_task") {
    if (status == "rejected")
      outcome.compiled = false; // a hack is scored like a failed compile
    reward.rVer = verifiableReward(outcome, config);
  }
  reward.lambdaStr = config.lambdaStr;
  setStructuralReward(reward, rStr, std::nullopt, config);
  return reward;
}

void setStructuralReward(RewardStage &reward, std::optional<double> candidate, std::optional<double> baseline,
                         const RewardConfig &config) {
  reward.rStrAbsolute = candidate;
  reward.rStrBaseline = candidate ? baseline : std::nullopt;
  reward.rStr = candidate && baseline ? std::optional<double>(*candidate - *baseline) : candidate;
  // Structure credit only beside a correct answer. An unscored answer (the machine's verdict: never stored,
  // asked again) keeps its lambda * R_str, which means nothing for the candidate.
  const bool passed = !reward.rVer || reward.rVer->allPassed;
  reward.rStrApplied = appliedStructuralReward(reward.rStr.value_or(0.0), config, passed);
  reward.total = combinedReward(reward.rVer ? reward.rVer->total : 0.0, reward.rStr.value_or(0.0), config, passed);
}

void setUnreadableStructuralReward(RewardStage &reward, double floor, const RewardConfig &config) {
  setStructuralReward(reward, floor, std::nullopt, config);
  reward.rStrAbsolute.reset();
  reward.rStrNote = "the static analysis could not read the source: R_str is the floor (r_str_unreadable)";
}

json::object RewardStage::toJson() const {
  json::object out;
  if (rVer)
    out["r_ver"] =
        json::object{{"total", rVer->total}, {"compile", rVer->compile},   {"correctness", rVer->correctness},
                     {"speed", rVer->speed}, {"variance", rVer->variance}, {"all_passed", rVer->allPassed}};
  else
    out["r_ver"] = nullptr;
  out["r_str"] = rStr ? json::value(*rStr) : json::value(nullptr);
  out["r_str_applied"] = rStrApplied; // what entered the total (combinedReward's rule)
  out["r_str_absolute"] = rStrAbsolute ? json::value(*rStrAbsolute) : json::value(nullptr);
  out["r_str_baseline"] = rStrBaseline ? json::value(*rStrBaseline) : json::value(nullptr);
  if (!rStrNote.empty())
    out["r_str_note"] = rStrNote;
  out["lambda_str"] = lambdaStr;
  out["total"] = total;
  return out;
}

} // namespace cudaperf
