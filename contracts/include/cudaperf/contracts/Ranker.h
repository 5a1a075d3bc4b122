// The structural ranker's exported model (ranker.json, written by
// cudaperf-train rank) and its forward pass in plain C++: the daemon scores
// candidates with it without LibTorch. Each feature is first transformed
// (identity, or a signed log for the heavy-tailed counts), normalised with the
// training split's mu and sigma, then goes through dense layers.
#pragma once

#include "cudaperf/contracts/FeatureVector.h"

#include <boost/json/value.hpp>

#include <array>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cudaperf {

struct DenseLayer {
  std::vector<std::vector<double>> weights; // [outputs][inputs]
  std::vector<double> bias;                 // [outputs]
};

// signed_log1p(x) = sign(x) * log(1 + |x|): per-thread bytes and operations
// span five orders of magnitude across kernels; the log keeps one outlier
// task from setting the scale of every other.
enum class FeatureTransform { Identity, SignedLog1p };

double transformFeature(FeatureTransform transform, double value);

// coal, occ and div: scores and fractions in [0, 1] already, which neither the
// log transform nor a task-relative log ratio is for (a plain difference is).
bool isUnitIntervalFeature(std::size_t index);

// The 11 CudaPerf features, and with `extended` the extended ones after them.
std::vector<std::size_t> defaultInputs(bool extended);

// A feature whose direction the hardware fixes (more bank-conflict ways:
// slower, all else equal) enters the score only through a linear term of a
// fixed sign, never through the network: the score is monotone in it
// whatever the training data's few examples say. `weight` is signed
// (negative for bank) and multiplies the feature's phi_hat.
struct MonotoneTerm {
  std::size_t input = 0; // index into RankerModel::inputs
  double weight = 0;
};

struct RankerModel {
  // The network's inputs, as feature indices (featureIndex): CudaPerf's 11 in
  // their order, then any extended ones (bank, vec, ...). One entry per input
  // in transform, mean and stddev.
  std::vector<std::size_t> inputs = defaultInputs(false);
  std::vector<FeatureTransform> transform = std::vector<FeatureTransform>(kFeatureCount); // identity by default
  std::vector<double> mean = std::vector<double>(kFeatureCount, 0.0);                     // of the transformed features
  std::vector<double> stddev = std::vector<double>(kFeatureCount, 1.0);
  std::vector<DenseLayer> layers; // the last has one output: the score
  // Added to the network's output; the first layer's weights of these
  // inputs are 0 (the file is refused otherwise).
  std::vector<MonotoneTerm> monotone;
  std::string activation = "relu"; // between layers: relu or tanh
  // The other members of an ensemble: networks trained the same way from other seeds, each with its
  // own normalisation and the same inputs; the score is the mean over this network and these (empty:
  // this network alone). A member has no members of its own.
  std::vector<RankerModel> ensemble;
  // The network reads a candidate against its task: the 11 as
  // featuresRelativeToBaseline of the candidate's and the task baseline's
  // (ranker.json "relative_to_baseline": true; members share it). Without the
  // baseline's vector such a model cannot score.
  bool relativeToBaseline = false;
  std::string dataHash;
  boost::json::value metrics; // training and held-out metrics, as exported
};

// A launch the entry walk sized at the task's size (a report's entry_launches):
// the blocks and threads features it gives the file when it stands for it.
struct LaunchShape {
  double blocks = 0;
  double threads = 0;
  bool certain = true; // runs whenever the entry runs (absent in a report: true)
};

// The launches one of which stands for the file: the shapes of a report's (or
// data line's) "entry_launches" where "entry_launches_complete" is true (every
// launch the entry can make was sized; the walk's doubt, if any, is only which
// of them run). None otherwise: a launch the walk did not size or may not have
// seen could be the largest, so none of the listed ones is known to stand. A
// launch whose blocks or threads is not a positive finite number, or a
// malformed field, throws std::invalid_argument naming it.
std::vector<LaunchShape> standingLaunchShapes(const boost::json::object &report);

// Validates the document (feature names and order, shapes, finite numbers);
// throws std::invalid_argument naming the field.
RankerModel rankerFromJson(const boost::json::value &document);
RankerModel loadRanker(const std::filesystem::path &file);
boost::json::value rankerToJson(const RankerModel &model);

// phi_hat, the network's input: transform, then (x - mu) / sigma; 0 (the
// training mean) for a feature the analysis marked unknown. Of the top-level
// network (an ensemble member has its own mu and sigma).
std::vector<double> rankerInput(const RankerModel &model, const FeatureVector &features);

// A candidate's 11 against its task baseline's: for coal, occ and div (scores in
// [0, 1]) the difference phi - phi_b; for the others, counts over orders of
// magnitude, signed_log1p(phi) - signed_log1p(phi_b), a log ratio that stays
// finite at 0. The extended features stay the candidate's own: they already
// say what a kernel does (vector width, bank ways, launch size), and made
// relative they validated worse (docs/ranker.md). A feature unknown on either
// side is unknown: the network reads it as its training mean. The
// candidate's own 11 go with them (FeatureVector::own, "own_coal" ...: a
// model may read them too, to know the task's scale), unknown where the
// candidate's are.
FeatureVector featuresRelativeToBaseline(const FeatureVector &candidate, const FeatureVector &baseline);

// What the model's network reads: the candidate's vector, or with
// relativeToBaseline featuresRelativeToBaseline(candidate, *baseline). Throws
// std::invalid_argument where the model needs a baseline and none is given.
FeatureVector rankerFeatures(const RankerModel &model, const FeatureVector &candidate, const FeatureVector *baseline);

// The score of one candidate (higher: expected faster): the mean of the
// ensemble's networks' scores (the one network's without an ensemble).
double rankerScore(const RankerModel &model, const FeatureVector &features);

// An ensemble's score from one network's scorer: the mean over the model's
// network and its members. Written once; the trainer's LibTorch scorer uses it.
double ensembleMeanScore(const RankerModel &model, const std::function<double(const RankerModel &)> &networkScore);

// The vectors rankerScoreAcrossLaunches takes the lowest score of: the
// features as they are, then, where blocks and threads are both unknown, each
// launch that may be the largest that runs standing for the file: the largest
// certain launch (it runs, so the one standing is at least as large) and every
// launch that may not run and is larger still; with no certain launch, every
// one. Written once; the trainer's LibTorch scorer reads them too.
std::vector<FeatureVector> launchAlternatives(const FeatureVector &features,
                                              const std::vector<LaunchShape> &sizedLaunches);

// The score R_str uses. Where the entry walk had a doubt, blocks and threads
// are unknown (the training mean), yet it may have sized launches: the launch
// standing for the file is one of them or one it could not size. The score is
// the lowest of the unknown's and each sized launch's, so a doubt a candidate
// adds (a launch under a condition the walk cannot decide) never lifts the
// score of a shape the ranker rates below the mean. Without such launches, or
// with blocks and threads known, it is rankerScore.
double rankerScoreAcrossLaunches(const RankerModel &model, const FeatureVector &features,
                                 const std::vector<LaunchShape> &sizedLaunches);
// The same rule for any scorer of a vector (the trainer's LibTorch forward pass).
double lowestScoreAcrossLaunches(const FeatureVector &features, const std::vector<LaunchShape> &sizedLaunches,
                                 const std::function<double(const FeatureVector &)> &score);

} // namespace cudaperf
