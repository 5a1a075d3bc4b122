// The feedback stage: what a refinement turn shows the policy about its
// candidate, in words (the verdict, the first failing test, the speed, and
// hints from the static features). Built from the typed stage results, so
// that it is tested without a daemon (test/unit/FeedbackTest.cpp).
#pragma once

#include "cudaperf/daemon/AnalysisStage.h"
#include "cudaperf/daemon/JudgeVerdict.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct FeedbackInputs {
  std::string status; // the evaluation's verdict
  std::string error;  // why, where the verdict has a reason
  std::string compileLog;
  std::vector<std::string> forbidden;      // symbols the task does not allow, when the compile refused them
  const JudgeVerdict *verdict = nullptr;   // the judge's, when it ran the candidate
  std::optional<double> speedup;           // the speedup the reward used ...
  std::string baseline;                    // ... and its baseline
  const AnalysisStage *analysis = nullptr; // the static features, when there are any
};

std::string feedbackText(const FeedbackInputs &inputs);

} // namespace cudaperf
