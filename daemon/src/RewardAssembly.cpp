#include "cudaperf/daemon/RewardAssembly.h"

#include "cudaperf/contracts/JsonAccess.h"

#include <algorithm>

namespace cudaperf {

namespace json = boost::json;

VerifiableOutcome judgedOutcome(json::object &result, const RewardConfig &config) {
  VerifiableOutcome outcome;
  outcome.compiled = true;
  const json::object *correctness = objectAt(result, "correctness");
  outcome.testsPassed = static_cast<int>(numberOr(correctness, "passed", 0));
  outcome.testsTotal = static_cast<int>(numberOr(correctness, "total", 0));
  if (json::object *timing = result.contains("timing") ? result["timing"].if_object() : nullptr) {
    const bool cpu = config.baseline == SpeedupBaseline::Cpu;
    if (const auto *speedup = timing->if_contains(cpu ? "speedup_cpu" : "speedup_gpu");
        speedup && speedup->is_number()) {
      outcome.speedup = speedup->to_number<double>();
      (*timing)["speedup"] = *outcome.speedup;
      (*timing)["baseline"] = cpu ? "cpu" : "gpu";
    }
    outcome.cv = numberOr(timing, "cv", 0);
  }
  const auto *status = result.if_contains("status");
  const bool scoredRun = status && status->is_string() && (*status == "ok" || *status == "wrong_answer");
  if (!scoredRun) // a rejected or broken run earns no correctness credit
    outcome.testsPassed = 0, outcome.testsTotal = std::max(outcome.testsTotal, 1);
  return outcome;
}

json::object assembleReward(const std::string &status, VerifiableOutcome outcome, std::optional<double> rStr,
                            const RewardConfig &config) {
  json::object reward;
  double rVerTotal = 0;
  if (status == "no_gpu" || status == "harness_error" || status == "bad_task") {
    reward["r_ver"] = nullptr;
  } else {
    if (status == "rejected")
      outcome.compiled = false; // a hack is scored like a failed compile
    const VerifiableReward rVer = verifiableReward(outcome, config);
    reward["r_ver"] =
        json::object{{"total", rVer.total}, {"compile", rVer.compile},   {"correctness", rVer.correctness},
                     {"speed", rVer.speed}, {"variance", rVer.variance}, {"all_passed", rVer.allPassed}};
    rVerTotal = rVer.total;
  }
  reward["r_str"] = rStr ? json::value(*rStr) : json::value(nullptr);
  reward["lambda_str"] = config.lambdaStr;
  reward["total"] = combinedReward(rVerTotal, rStr.value_or(0.0), config);
  return reward;
}

} // namespace cudaperf
