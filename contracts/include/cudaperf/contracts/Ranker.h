// The structural ranker's exported model (ranker.json, written by
// cudaperf-train rank) and its forward pass in plain C++: the daemon scores
// candidates with it without LibTorch. Features are normalised with the
// training split's mu and sigma, then go through dense layers.
#pragma once

#include "cudaperf/contracts/FeatureVector.h"

#include <boost/json/value.hpp>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace cudaperf {

struct DenseLayer {
  std::vector<std::vector<double>> weights; // [outputs][inputs]
  std::vector<double> bias;                 // [outputs]
};

struct RankerModel {
  std::array<double, kFeatureCount> mean{};
  std::array<double, kFeatureCount> stddev{};
  std::vector<DenseLayer> layers;  // the last has one output: the score
  std::string activation = "relu"; // between layers: relu or tanh
  std::string dataHash;
  boost::json::value metrics; // training and held-out metrics, as exported
};

// Validates the document (feature names and order, shapes, finite numbers);
// throws std::invalid_argument naming the field.
RankerModel rankerFromJson(const boost::json::value &document);
RankerModel loadRanker(const std::filesystem::path &file);
boost::json::value rankerToJson(const RankerModel &model);

// The score of one candidate (higher: expected faster).
double rankerScore(const RankerModel &model, const FeatureVector &features);

} // namespace cudaperf
