// cudaperf-train rank: data parsing and its errors, pairs, rank metrics
// against hand-computed values, and training on synthetic data where the
// answer is known (a monotone speed function is recovered, noise is not).
#include "cudaperf/contracts/HandMapping.h"
#include "cudaperf/trainer/RankValidation.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <sstream>

using namespace cudaperf;
namespace json = boost::json;

namespace {

std::string line(const std::string &task, double speedup, const FeatureVector &features,
                 const std::string &status = "ok") {
  json::object vector;
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    vector[kFeatureNames[i]] = features[i];
  return json::serialize(json::object{{"task", task}, {"status", status}, {"speedup", speedup}, {"features", vector}}) +
         "\n";
}

// tasks x variants with random features; speed from `speed(features, rng)`.
template <typename Speed> std::string synthetic(int tasks, int variants, unsigned seed, Speed speed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0, 1);
  std::string text;
  for (int t = 0; t < tasks; ++t)
    for (int v = 0; v < variants; ++v) {
      FeatureVector features;
      for (std::size_t i = 0; i < kFeatureCount; ++i)
        features[i] = normal(random) + 0.5 * t; // tasks differ in level, as real ones do
      text += line("task" + std::to_string(t), speed(features, random), features);
    }
  return text;
}

std::string errorOf(const std::string &text) {
  try {
    parseRankerData(text, "data.jsonl");
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "accepted";
}

RankerTrainingOptions quick() {
  RankerTrainingOptions options;
  options.hidden = {16, 16};
  options.epochs = 200;
  options.pairs = PairMode::All;
  options.logScale = false; // the synthetic features are Gaussian, not heavy-tailed counts
  return options;
}

} // namespace

TEST(RankerData, ParsesPassingEvaluationsAndLeavesOutTheRest) {
  FeatureVector f;
  const RankerDataset data = parseRankerData(
      line("a", 2, f) + line("a", 1, f) + line("a", 3, f, "wrong_answer") + line("b", 1, f) + line("b", 4, f) +
          R"({"task": "b", "status": "no_gpu", "speedup": null, "features": null})"
          "\n" +
          line("c", 5, f),
      "data.jsonl");
  EXPECT_EQ(data.tasks, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(data.droppedTasks, (std::vector<std::string>{"c"})); // one passing variant
  EXPECT_EQ(data.samples.size(), 4u);
  EXPECT_EQ(data.excluded, 2u);
  EXPECT_EQ(data.hash.size(), 64u); // SHA-256, hex
}

TEST(RankerData, UnknownFeaturesAreReadAndLeftOutOfTheTrainingMean) {
  FeatureVector known, runtimeBlock;
  known.occ = 1.0, known.tpb = 256;
  runtimeBlock.occ = 0.1; // CudaPerf's value for an unknown block size
  std::string unknownLine = line("a", 1, runtimeBlock);
  unknownLine.insert(unknownLine.rfind('}'), R"(, "features_unknown": ["occ", "tpb"])");
  const RankerDataset data = parseRankerData(line("a", 2, known) + unknownLine + line("b", 1, known) +
                                                 line("b", 3, known) + line("c", 1, known) + line("c", 2, known),
                                             "data.jsonl");
  ASSERT_EQ(data.samples.size(), 6u);
  std::size_t unknownSamples = 0;
  for (const auto &sample : data.samples)
    unknownSamples +=
        sample.features.isUnknown(*featureIndex("occ")) && sample.features.isUnknown(*featureIndex("tpb"));
  EXPECT_EQ(unknownSamples, 1u);
  std::string bad = line("a", 1, known);
  bad.insert(bad.rfind('}'), R"(, "features_unknown": ["occupancy"])");
  EXPECT_NE(errorOf(bad + line("a", 2, known)).find("data.jsonl:1: features_unknown: "), std::string::npos);
  // Trained on it: occ's mean and spread come from the known values alone (all 1.0).
  RankerTrainingOptions options = quick();
  options.epochs = 2;
  const RankerModel model = trainRanker(data, data.tasks, options);
  EXPECT_DOUBLE_EQ(model.mean[*featureIndex("occ")], 1.0);
  EXPECT_DOUBLE_EQ(model.mean[*featureIndex("tpb")], 256.0);
}

TEST(RankerData, ErrorsNameTheLineAndTheKey) {
  FeatureVector f;
  std::string missing = line("a", 2, f);
  missing.replace(missing.find("\"gmem\""), 6, "\"gmen\"");
  EXPECT_EQ(errorOf(line("a", 1, f) + missing), "data.jsonl:2: features.gmem missing");
  EXPECT_EQ(errorOf(R"({"task": "a", "speedup": 1.5, "features": {"coal": NaN}})"),
            "data.jsonl:1: not valid JSON (NaN and Infinity are not JSON numbers; features must be finite)");
  EXPECT_EQ(errorOf(R"({"task": "a", "speedup": 2, "features": {"coal": "nan"}})"),
            "data.jsonl:1: features.coal must be a finite number");
  EXPECT_EQ(errorOf(R"({"speedup": 1, "features": {}})"), "data.jsonl:1: \"task\" missing");
  EXPECT_EQ(errorOf(R"({"task": 3, "speedup": 1, "features": {}})"), "data.jsonl:1: \"task\" must be a string");
  EXPECT_EQ(errorOf(R"({"task": "", "speedup": 1, "features": {}})"), "data.jsonl:1: \"task\" must not be empty");
  EXPECT_EQ(errorOf(R"({"task": "a", "status": 1, "speedup": 1, "features": {}})"),
            "data.jsonl:1: \"status\" must be a string");
  EXPECT_EQ(errorOf(line("a", -1, f)), "data.jsonl:1: \"speedup\" must be a positive finite number");
  EXPECT_NE(errorOf(R"({"task": "a", "speedup": 2, "features": null})").find("\"features\" missing"),
            std::string::npos);
  EXPECT_EQ(errorOf("[1, 2]"), "data.jsonl:1: not a JSON object");
}

TEST(RankerData, SingleVariantTasksAreAClearError) {
  FeatureVector f;
  EXPECT_EQ(errorOf(line("a", 1, f) + line("b", 2, f) + line("c", 3, f)),
            "data.jsonl: need two or more tasks with two or more passing variants (validation holds whole tasks "
            "out); found 0; tasks with a single passing variant: a and 2 more");
}

TEST(RankerData, QuartilePairsTopAgainstBottomWithinATask) {
  FeatureVector f;
  std::string text;
  for (double speed : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}) // n = 8: quarter = 2
    text += line("a", speed, f);
  text += line("b", 1.0, f) + line("b", 1.01, f); // a tie within 5 %: no pair
  const RankerDataset data = parseRankerData(text, "data.jsonl");
  const auto quartile = rankPairs(data, data.tasks, PairMode::Quartile);
  ASSERT_EQ(quartile.size(), 4u); // {8, 7} x {2, 1}
  for (const auto &pair : quartile) {
    EXPECT_GE(data.samples[pair.faster].speedup, 7.0);
    EXPECT_LE(data.samples[pair.slower].speedup, 2.0);
  }
  EXPECT_EQ(rankPairs(data, data.tasks, PairMode::All).size(), 28u); // 8 choose 2, and no pair in b
}

TEST(RankMetrics, AgainstHandComputedValues) {
  // scores 1 2 3 4 vs speeds 1 3 2 4: ranks differ in one swap.
  // Spearman = 1 - 6 * (0 + 1 + 1 + 0) / (4 * 15) = 0.8; Kendall = (5 - 1) / 6.
  const std::vector<double> scores{1, 2, 3, 4}, speeds{1, 3, 2, 4};
  const RankAgreement agreement = rankAgreement(scores, speeds, 1.0);
  EXPECT_NEAR(agreement.spearman, 0.8, 1e-12);
  EXPECT_NEAR(agreement.kendall, 4.0 / 6.0, 1e-12);
  EXPECT_EQ(agreement.pairs, 6u);
  EXPECT_NEAR(agreement.pairwiseAccuracy, 5.0 / 6.0, 1e-12);
  // A constant scorer orders nothing: 0, 0 and one half.
  const RankAgreement constant = rankAgreement({1, 1, 1, 1}, speeds, 1.0);
  EXPECT_EQ(constant.spearman, 0.0);
  EXPECT_EQ(constant.kendall, 0.0);
  EXPECT_EQ(constant.pairwiseAccuracy, 0.5);
  // Kendall tau-b with a tie in x: pairs (1,2) tied; nc = 5, nd = 0, ties_x = 1: 5 / sqrt(5 * 6).
  EXPECT_NEAR(kendallTauB({1, 1, 2, 3}, {1, 2, 3, 4}), 5.0 / std::sqrt(30.0), 1e-12);
}

TEST(HandMapping, AgainstHandComputedValue) {
  FeatureVector features;
  features.coal = 0.8; // mapped: enters as is
  features.occ = 0.4;  // mapped: enters as is
  std::vector<double> normalised(kFeatureCount);
  normalised[0] = 100; // coal's phi_hat: not used
  normalised[1] = 1;   // ai: +1
  normalised[3] = 2;   // div: -2
  normalised[8] = 50;  // tpb: not scored (occ covers it)
  normalised[10] = -1; // ops: +1
  EXPECT_NEAR(handMappingScore(features, normalised), 0.8 + 0.4 + 1 - 2 + 1, 1e-12);
}

TEST(RankerModel, SignedLogTransformBeforeNormalisation) {
  EXPECT_NEAR(transformFeature(FeatureTransform::SignedLog1p, std::exp(2.0) - 1), 2.0, 1e-12);
  EXPECT_NEAR(transformFeature(FeatureTransform::SignedLog1p, -(std::exp(1.0) - 1)), -1.0, 1e-12);
  EXPECT_EQ(transformFeature(FeatureTransform::Identity, -3.5), -3.5);
  RankerModel model;
  // The 11 inputs: mu 0 and sigma 1 by default.
  model.transform[9] = FeatureTransform::SignedLog1p; // gmem
  model.mean[9] = 1;
  model.stddev[9] = 0.5;
  FeatureVector features;
  features.gmem = std::exp(3.0) - 1;
  features.coal = 0.25;
  const auto input = rankerInput(model, features);
  EXPECT_NEAR(input[9], (3.0 - 1) / 0.5, 1e-12);
  EXPECT_EQ(input[0], 0.25);
  // Written and read back with the transform.
  model.layers = {DenseLayer{{std::vector<double>(model.inputs.size(), 1.0)}, {0.0}}};
  const RankerModel loaded = rankerFromJson(rankerToJson(model));
  EXPECT_EQ(loaded.transform[9], FeatureTransform::SignedLog1p);
  EXPECT_EQ(loaded.transform[0], FeatureTransform::Identity);
  EXPECT_NEAR(rankerScore(loaded, features), 4.0 + 0.25, 1e-12);
}

TEST(RankerTraining, RecoversAMonotoneSpeedFunctionOnHeldOutTasks) {
  // Speed rises with coal and ai and falls with div, nonlinearly (exp, square).
  const RankerDataset data =
      parseRankerData(synthetic(16, 12, 1,
                                [](const FeatureVector &f, std::mt19937 &) {
                                  return std::exp(f.coal + 0.5 * f.ai - 0.2 * f.div * std::abs(f.div));
                                }),
                      "synthetic");
  const ValidationReport report = validateByTask(data, quick(), 4, 1);
  std::cout << "monotone: held-out pairwise accuracy " << scorer(report, "mlp").pairwiseAccuracy.mean << ", Spearman "
            << scorer(report, "mlp").spearman.mean << "\n";
  EXPECT_GT(scorer(report, "mlp").pairwiseAccuracy.mean, 0.9);
  EXPECT_GT(scorer(report, "mlp").spearman.mean, 0.85);
  EXPECT_NEAR(scorer(report, "random").pairwiseAccuracy.mean, 0.5, 0.1);
}

TEST(RankerTraining, NoiseOnlyDataStaysNearChance) {
  const RankerDataset data = parseRankerData(synthetic(12, 10, 2,
                                                       [](const FeatureVector &, std::mt19937 &random) {
                                                         return std::uniform_real_distribution<double>(1, 10)(random);
                                                       }),
                                             "noise");
  const ValidationReport report = validateByTask(data, quick(), 4, 1);
  std::cout << "noise: held-out pairwise accuracy " << scorer(report, "mlp").pairwiseAccuracy.mean << ", Spearman "
            << scorer(report, "mlp").spearman.mean << "\n";
  EXPECT_NEAR(scorer(report, "mlp").pairwiseAccuracy.mean, 0.5, 0.1);
  EXPECT_NEAR(scorer(report, "mlp").spearman.mean, 0.0, 0.2);
}

TEST(RankerTraining, DeterministicWithAFixedSeedAndExportRoundTrips) {
  const RankerDataset data = parseRankerData(
      synthetic(6, 8, 3, [](const FeatureVector &f, std::mt19937 &) { return std::exp(f.ops); }), "synthetic");
  RankerTrainingOptions options = quick();
  options.seed = 7;
  const RankerModel first = trainRanker(data, data.tasks, options);
  const RankerModel second = trainRanker(data, data.tasks, options);
  EXPECT_EQ(json::serialize(rankerToJson(first)), json::serialize(rankerToJson(second)));
  options.seed = 8;
  EXPECT_NE(json::serialize(rankerToJson(trainRanker(data, data.tasks, options))),
            json::serialize(rankerToJson(first)));

  // Scores are standardised over the training evaluations (of six tasks,
  // ceil(0.2 * 6) = 2 are held back for early stopping).
  TrainingSummary summary;
  options.seed = 7;
  trainRanker(data, data.tasks, options, &summary);
  double mean = 0, squares = 0;
  std::size_t count = 0;
  for (const auto &task : data.tasks) {
    if (std::find(summary.validationTasks.begin(), summary.validationTasks.end(), task) !=
        summary.validationTasks.end())
      continue;
    for (std::size_t s : data.samplesOf(task)) {
      const double score = rankerScore(first, data.samples[s].features);
      mean += score;
      squares += score * score;
      ++count;
    }
  }
  EXPECT_EQ(summary.validationTasks.size(), 2u);
  EXPECT_NEAR(mean / static_cast<double>(count), 0.0, 1e-9);
  EXPECT_NEAR(squares / static_cast<double>(count), 1.0, 1e-9);

  // Exported, parsed back (what the daemon loads): the daemon's plain C++
  // score equals the trainer's LibTorch score.
  const RankerModel loaded = rankerFromJson(json::parse(json::serialize(rankerToJson(first))));
  EXPECT_EQ(loaded.dataHash, data.hash);
  for (const auto &sample : data.samples) {
    EXPECT_NEAR(rankerScore(loaded, sample.features), torchRankerScore(first, sample.features), 1e-6);
    EXPECT_NEAR(rankerScore(loaded, sample.features), rankerScore(first, sample.features), 1e-12);
  }
}

TEST(RankerTraining, AnEnsembleIsItsSeedsNetworksScoredByTheirStandardisedMean) {
  const RankerDataset data = parseRankerData(
      synthetic(6, 8, 3, [](const FeatureVector &f, std::mt19937 &) { return std::exp(f.ops); }), "synthetic");
  RankerTrainingOptions options = quick();
  options.seed = 7;
  options.ensemble = 3;
  const RankerModel model = trainRanker(data, data.tasks, options);
  ASSERT_EQ(model.ensemble.size(), 2u);
  // Its first network is the seed's own (up to the output's scale), the others come from other seeds.
  RankerTrainingOptions alone = options;
  alone.ensemble = 1;
  EXPECT_EQ(json::serialize(json::value_from(model.layers.front().weights)),
            json::serialize(json::value_from(trainRanker(data, data.tasks, alone).layers.front().weights)));
  EXPECT_NE(json::serialize(json::value_from(model.layers.front().weights)),
            json::serialize(json::value_from(model.ensemble[0].layers.front().weights)));
  // The score: the mean of the three networks' own, standardised over every training task's evaluations.
  double mean = 0, squares = 0;
  std::size_t count = 0;
  for (const auto &sample : data.samples) {
    RankerModel first = model, second = model.ensemble[0], third = model.ensemble[1];
    first.ensemble.clear();
    const double own = (rankerScore(first, sample.features) + rankerScore(second, sample.features) +
                        rankerScore(third, sample.features)) /
                       3;
    const double score = rankerScore(model, sample.features);
    EXPECT_NEAR(score, own, 1e-12);
    mean += score;
    squares += score * score;
    ++count;
  }
  EXPECT_NEAR(mean / static_cast<double>(count), 0.0, 1e-9);
  EXPECT_NEAR(squares / static_cast<double>(count), 1.0, 1e-9);
  // What the daemon loads scores as the trainer's LibTorch does.
  const RankerModel loaded = rankerFromJson(json::parse(json::serialize(rankerToJson(model))));
  ASSERT_EQ(loaded.ensemble.size(), 2u);
  for (const auto &sample : data.samples)
    EXPECT_NEAR(rankerScore(loaded, sample.features), torchRankerScore(model, sample.features), 1e-6);
  options.ensemble = 0;
  EXPECT_THROW(trainRanker(data, data.tasks, options), std::invalid_argument);
}

TEST(RankerTraining, AMonotoneFeatureKeepsItsSignWhateverTheDataSays) {
  // Speed falls with div: the trained term is clearly negative, and the
  // network never sees div (its first-layer weights are 0 in the export).
  const RankerDataset falling = parseRankerData(
      synthetic(10, 10, 4, [](const FeatureVector &f, std::mt19937 &) { return std::exp(0.5 * f.coal - 0.8 * f.div); }),
      "falling");
  RankerTrainingOptions options = quick();
  options.monotone = {MonotoneFeature{*featureIndex("div"), -1}};
  const RankerModel model = trainRanker(falling, falling.tasks, options);
  ASSERT_EQ(model.monotone.size(), 1u);
  EXPECT_EQ(model.inputs[model.monotone[0].input], *featureIndex("div"));
  EXPECT_LT(model.monotone[0].weight, -0.3);
  for (const auto &row : model.layers.front().weights)
    EXPECT_EQ(row[model.monotone[0].input], 0.0);
  // The daemon's plain C++ and LibTorch agree, through the exported file.
  const RankerModel loaded = rankerFromJson(rankerToJson(model));
  FeatureVector probe;
  probe.coal = 0.4;
  probe.div = 1.5;
  EXPECT_NEAR(rankerScore(loaded, probe), torchRankerScore(loaded, probe), 1e-9);
  // Two candidates alike but for div: the one with more is scored lower, by the term alone.
  FeatureVector more = probe;
  more.div = 2.5;
  EXPECT_NEAR(rankerScore(loaded, probe) - rankerScore(loaded, more),
              -model.monotone[0].weight * (1.0 / model.stddev[model.monotone[0].input]), 1e-9);
  // Where the sign is right it costs nothing held out: as good as the unconstrained network, or better.
  const double constrainedAccuracy = scorer(validateByTask(falling, options, 4, 1), "mlp").pairwiseAccuracy.mean;
  const double freeAccuracy = scorer(validateByTask(falling, quick(), 4, 1), "mlp").pairwiseAccuracy.mean;
  std::cout << "monotone div: held-out pairwise accuracy " << constrainedAccuracy << " (unconstrained " << freeAccuracy
            << ")\n";
  EXPECT_GT(constrainedAccuracy, 0.8);
  EXPECT_GT(constrainedAccuracy, freeAccuracy - 0.02);

  // Speed rises with div alone: the constraint holds, the data cannot turn
  // it round (the term stays negative, so held-out pairs come out wrong more
  // often than right; the unconstrained model gets them right).
  const RankerDataset rising = parseRankerData(
      synthetic(10, 10, 5, [](const FeatureVector &f, std::mt19937 &) { return std::exp(0.8 * f.div); }), "rising");
  const RankerModel constrained = trainRanker(rising, rising.tasks, options);
  ASSERT_EQ(constrained.monotone.size(), 1u);
  EXPECT_LT(constrained.monotone[0].weight, 0.0);
  EXPECT_LT(scorer(validateByTask(rising, options, 4, 1), "mlp").pairwiseAccuracy.mean, 0.5);
  EXPECT_GT(scorer(validateByTask(rising, quick(), 4, 1), "mlp").pairwiseAccuracy.mean, 0.85);

  // A feature that is not an input (bank is extended), or named twice: a clear error.
  options.monotone = {MonotoneFeature{*featureIndex("bank"), -1}};
  EXPECT_THROW(trainRanker(falling, falling.tasks, options), std::invalid_argument);
  options.monotone = {MonotoneFeature{*featureIndex("div"), -1}, MonotoneFeature{*featureIndex("div"), 1}};
  EXPECT_THROW(trainRanker(falling, falling.tasks, options), std::invalid_argument);
}
