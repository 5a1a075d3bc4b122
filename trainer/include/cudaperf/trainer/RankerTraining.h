// Training the structural ranker (LibTorch behind this header, which names
// no torch type, so only one translation unit pays for torch's headers): an
// MLP over phi_hat = (phi - mu) / sigma, logistic pairwise loss on pairs of
// one task's variants, AdamW, early stopping on held-back tasks. The result
// is the plain RankerModel the daemon scores with.
#pragma once

#include "cudaperf/contracts/Ranker.h"
#include "cudaperf/trainer/RankerData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf {

// A feature the score must be monotone in, and which way (-1: a higher value
// is slower, as bank-conflict ways are). It leaves the network's inputs and
// enters through a linear term sign * softplus(theta) * phi_hat.
struct MonotoneFeature {
  std::size_t feature = 0; // featureIndex
  int sign = -1;
};

struct RankerTrainingOptions {
  std::vector<int> hidden{32, 32}; // hidden layer widths; empty: a linear scorer
  std::string activation = "tanh"; // relu or tanh
  // signed_log1p on the unbounded features (all but coal, occ and div, which
  // are scores or fractions already); false: every feature as measured.
  bool logScale = true;
  // With the extended features (bank, vec, reuse, warp, grid_stride) after
  // the 11; false (CudaPerf's inputs) until measured data shows they help
  // (docs/ranker.md: on the bundled H200 data they do not yet).
  bool extendedFeatures = false;
  // Also the candidate's own 11 after them (own_coal ...), beside the
  // relative ones: only with data made relative to each task's baseline.
  bool ownFeatures = false;
  // Features whose direction the hardware fixes (docs/ranker.md); each must
  // be among the inputs (bank and vec are extended features).
  std::vector<MonotoneFeature> monotone;
  PairMode pairs = PairMode::Quartile;
  double tieRatio = kDefaultTieRatio;
  int epochs = 300;                // full-batch passes over the training pairs, at most
  int patience = 40;               // epochs without a better validation loss before stopping
  double learningRate = 3e-3;      // AdamW
  double weightDecay = 1e-2;       // AdamW (decoupled)
  double validationFraction = 0.2; // of the training tasks, held back for early stopping
  std::uint64_t seed = 0;
  // Networks trained alike from seeds seed, seed + kEnsembleSeedStride, ...
  // (each holding back its own validation tasks), scored by their mean: one
  // network's score depends on its seed's validation tasks and start.
  int ensemble = 1;
};

constexpr std::uint64_t kEnsembleSeedStride = 7919;

struct TrainingSummary {
  std::size_t trainPairs = 0;
  std::size_t validationPairs = 0;
  std::vector<std::string> validationTasks;
  int epochsRun = 0;
  int bestEpoch = 0; // the weights kept: lowest validation loss (last epoch without validation)
  double trainLoss = 0;
  double validationLoss = 0;
};

// The transform of each feature for a given logScale choice.
std::vector<FeatureTransform> featureTransforms(bool logScale, const std::vector<std::size_t> &inputs);

// Trains on the samples of `tasks`. mu and sigma (of the transformed features) come from the training split
// (the tasks not held back for validation); a feature constant there gets
// sigma 1. The returned scores have mean 0 and standard deviation 1 over the
// training evaluations. Deterministic for a given seed. Throws std::invalid_argument when
// the tasks give no training pair.
RankerModel trainRanker(const RankerDataset &data, const std::vector<std::string> &tasks,
                        const RankerTrainingOptions &options, TrainingSummary *summary = nullptr);

// The model's score computed by LibTorch (the trainer's forward pass), to
// check the exported file against the daemon's plain C++ rankerScore.
double torchRankerScore(const RankerModel &model, const FeatureVector &features);

} // namespace cudaperf
