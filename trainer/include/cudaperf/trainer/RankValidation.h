// Held-out validation of ranking scorers by task, never by row: K folds of
// whole tasks (repeated with different shuffles); every scorer is judged on
// each held-out task by how it orders that task's variants against their
// measured speed.
#pragma once

#include "cudaperf/contracts/EvalMetrics.h" // MeanStd: over the held-out tasks of all folds and repeats
#include "cudaperf/trainer/RankMetrics.h"
#include "cudaperf/trainer/RankerTraining.h"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace cudaperf {

struct HeldOutTask {
  std::string task;
  int repeat = 0;
  int fold = 0;
  RankAgreement agreement;
};

struct ScorerValidation {
  std::string name; // mlp, linear, hand_mapping, random
  std::vector<HeldOutTask> tasks;
  MeanStd spearman, kendall, pairwiseAccuracy;
};

struct ValidationReport {
  int folds = 0;
  int repeats = 0;
  std::vector<ScorerValidation> scorers; // mlp, linear, hand_mapping, random
};

// `mlp` trains the MLP; the linear scorer is trained the same way with no
// hidden layer; the hand mapping uses the fold's training mu and sigma; the
// random scorer draws uniform scores. folds is clamped to the number of tasks.
ValidationReport validateByTask(const RankerDataset &data, const RankerTrainingOptions &mlp, int folds, int repeats);

// Each feature alone as a scorer, per task: how much ranking signal it
// carries and in which direction (the hand mapping fixes one direction).
struct FeatureSignal {
  std::string feature;
  double spearmanMean = 0;      // mean over tasks of Spearman(feature, speedup)
  std::size_t tasksVarying = 0; // tasks in which the feature takes two or more values
  int handMappingSign = 0;
};
std::vector<FeatureSignal> featureSignals(const RankerDataset &data);

const ScorerValidation &scorer(const ValidationReport &report, const std::string &name);
boost::json::value toJson(const ScorerValidation &validation, bool perTask);

} // namespace cudaperf
