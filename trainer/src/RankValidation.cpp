#include "cudaperf/trainer/RankValidation.h"

#include "cudaperf/contracts/HandMapping.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

namespace json = boost::json;

namespace cudaperf {

namespace {

void summarise(ScorerValidation &validation) {
  std::vector<double> spearman, kendall, accuracy;
  for (const auto &task : validation.tasks) {
    spearman.push_back(task.agreement.spearman);
    kendall.push_back(task.agreement.kendall);
    accuracy.push_back(task.agreement.pairwiseAccuracy);
  }
  validation.spearman = meanStd(spearman);
  validation.kendall = meanStd(kendall);
  validation.pairwiseAccuracy = meanStd(accuracy);
}

json::object meanStdJson(const MeanStd &value) { return {{"mean", value.mean}, {"std", value.std}}; }

} // namespace

ValidationReport validateByTask(const RankerDataset &data, const RankerTrainingOptions &mlp, int folds, int repeats) {
  if (folds < 2 || repeats < 1)
    throw std::invalid_argument("validation needs two or more folds and one or more repeats");
  ValidationReport report;
  report.folds = std::min<int>(folds, static_cast<int>(data.tasks.size()));
  report.repeats = repeats;
  report.scorers = {{"mlp", {}, {}, {}, {}},
                    {"linear", {}, {}, {}, {}},
                    {"hand_mapping", {}, {}, {}, {}},
                    {"random", {}, {}, {}, {}}};
  RankerTrainingOptions linear = mlp;
  linear.hidden.clear();
  for (int repeat = 0; repeat < repeats; ++repeat) {
    std::vector<std::string> tasks = data.tasks;
    std::mt19937_64 shuffle(mlp.seed * 1000003 + static_cast<std::uint64_t>(repeat));
    std::shuffle(tasks.begin(), tasks.end(), shuffle);
    for (int fold = 0; fold < report.folds; ++fold) {
      std::vector<std::string> train, heldOut;
      for (std::size_t t = 0; t < tasks.size(); ++t)
        (static_cast<int>(t % static_cast<std::size_t>(report.folds)) == fold ? heldOut : train).push_back(tasks[t]);
      RankerTrainingOptions foldMlp = mlp, foldLinear = linear;
      foldMlp.seed = foldLinear.seed = mlp.seed + static_cast<std::uint64_t>(repeat * 100 + fold);
      const RankerModel mlpModel = trainRanker(data, train, foldMlp);
      const RankerModel linearModel = trainRanker(data, train, foldLinear);
      std::mt19937_64 randomScores(foldMlp.seed ^ 0x9e3779b97f4a7c15ull);
      std::uniform_real_distribution<double> uniform(0.0, 1.0);
      for (const auto &task : heldOut) {
        std::vector<double> speedups, scores[4];
        for (std::size_t s : data.samplesOf(task)) {
          const auto &sample = data.samples[s];
          speedups.push_back(sample.speedup);
          scores[0].push_back(rankerScoreAcrossLaunches(mlpModel, sample.features, sample.entryLaunches));
          scores[1].push_back(rankerScoreAcrossLaunches(linearModel, sample.features, sample.entryLaunches));
          scores[2].push_back(handMappingScore(sample.features, rankerInput(mlpModel, sample.features)));
          scores[3].push_back(uniform(randomScores));
        }
        for (std::size_t k = 0; k < 4; ++k)
          report.scorers[k].tasks.push_back({task, repeat, fold, rankAgreement(scores[k], speedups, mlp.tieRatio)});
      }
    }
  }
  for (auto &validation : report.scorers)
    summarise(validation);
  return report;
}

std::vector<FeatureSignal> featureSignals(const RankerDataset &data) {
  std::vector<FeatureSignal> signals;
  for (std::size_t f = 0; f < kAllFeatureCount; ++f) {
    FeatureSignal signal{std::string(featureName(f)), 0, 0, f < kFeatureCount ? kHandMappingSigns[f] : 0};
    for (const auto &task : data.tasks) {
      std::vector<double> values, speedups;
      for (std::size_t s : data.samplesOf(task)) {
        values.push_back(data.samples[s].features.valueAt(f));
        speedups.push_back(data.samples[s].speedup);
      }
      if (std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end())
        ++signal.tasksVarying;
      signal.spearmanMean += spearman(values, speedups) / static_cast<double>(data.tasks.size());
    }
    signals.push_back(signal);
  }
  return signals;
}

const ScorerValidation &scorer(const ValidationReport &report, const std::string &name) {
  for (const auto &validation : report.scorers)
    if (validation.name == name)
      return validation;
  throw std::invalid_argument("no scorer " + name);
}

json::value toJson(const ScorerValidation &validation, bool perTask) {
  json::object object{{"spearman", meanStdJson(validation.spearman)},
                      {"kendall", meanStdJson(validation.kendall)},
                      {"pairwise_acc", meanStdJson(validation.pairwiseAccuracy)},
                      {"spearman_mean", validation.spearman.mean},
                      {"kendall_mean", validation.kendall.mean},
                      {"pairwise_acc_mean", validation.pairwiseAccuracy.mean},
                      {"heldout_tasks", validation.tasks.size()}};
  if (perTask) {
    json::array tasks;
    for (const auto &task : validation.tasks)
      tasks.push_back({{"task", task.task},
                       {"repeat", task.repeat},
                       {"fold", task.fold},
                       {"spearman", task.agreement.spearman},
                       {"kendall", task.agreement.kendall},
                       {"pairwise_acc", task.agreement.pairwiseAccuracy},
                       {"pairs", task.agreement.pairs}});
    object["tasks"] = std::move(tasks);
  }
  return object;
}

} // namespace cudaperf
