// The reward stage: from the judge's typed verdict to what the formulas of
// contracts/VerifiableReward.h take, and the reward a trainer receives with
// every component. Typed and free of the pipeline, so that it is tested
// without a daemon (test/unit/RewardAssemblyTest.cpp).
#pragma once

#include "cudaperf/contracts/VerifiableReward.h"
#include "cudaperf/daemon/JudgeVerdict.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace cudaperf {

// A judged candidate's outcome: tests passed of total, the speedup over the
// configured baseline (where timed) and the CV. A verdict other than ok or
// wrong_answer earns no correctness credit.
struct JudgedOutcome {
  VerifiableOutcome outcome;
  std::optional<double> speedup; // the one the reward used ...
  std::string baseline;          // ... and against what: "cpu" or "gpu" (empty without a speedup)
};
JudgedOutcome judgedOutcome(const JudgeVerdict &verdict, const RewardConfig &config);

// The answer's `reward`: R_ver's components (none for no_gpu, harness_error
// and bad_task: nothing was verified, and nothing of it is the candidate's
// doing; a rejected candidate is scored like a failed compile), R_str,
// lambda_str and total = R_ver + lambda_str * R_str (of an answer that did
// not pass every test only R_str's negative part: combinedReward).
struct RewardStage {
  std::optional<VerifiableReward> rVer; // nullopt: unscored
  std::optional<double> rStr;           // the structural reward: relative to the task's baseline where measured so
  std::optional<double> rStrAbsolute;   // the ranker's score of the candidate itself
  std::optional<double> rStrBaseline;   // ... and of the task's baseline.cu (nullopt: R_str is absolute)
  double rStrApplied = 0;               // what of R_str the total adds (combinedReward's rule)
  std::string rStrNote;                 // why R_str is what it is where it is no score (the answer's r_str_note)
  double lambdaStr = 0;
  double total = 0;
  boost::json::object toJson() const;
};
RewardStage assembleReward(const std::string &status, VerifiableOutcome outcome, std::optional<double> rStr,
                           const RewardConfig &config);

// R_str measured from the task's baseline: the candidate's score less the
// baseline's; without a baseline score (none, or not asked for) the
// candidate's own. Fills rStr, rStrAbsolute and rStrBaseline.
void setStructuralReward(RewardStage &reward, std::optional<double> candidate, std::optional<double> baseline,
                         const RewardConfig &config);
// The floor R_str of a candidate the analysis could not read (no score of
// its own: r_str_absolute null, and a note saying why).
void setUnreadableStructuralReward(RewardStage &reward, double floor, const RewardConfig &config);

} // namespace cudaperf
