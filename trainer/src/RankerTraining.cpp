#include "cudaperf/trainer/RankerTraining.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace cudaperf {

namespace {

constexpr double kMonotoneRateFactor = 50; // the monotone terms' learning rate over the network's

torch::nn::Sequential buildNetwork(std::int64_t inputs, const std::vector<int> &hidden, const std::string &activation) {
  torch::nn::Sequential network;
  for (int width : hidden) {
    network->push_back(torch::nn::Linear(inputs, width));
    if (activation == "tanh")
      network->push_back(torch::nn::Tanh());
    else
      network->push_back(torch::nn::ReLU());
    inputs = width;
  }
  network->push_back(torch::nn::Linear(inputs, 1));
  network->to(torch::kDouble);
  return network;
}

std::vector<torch::nn::Linear> linearLayers(torch::nn::Sequential &network) {
  std::vector<torch::nn::Linear> layers;
  for (auto &module : network->children())
    if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(module))
      layers.emplace_back(linear);
  return layers;
}

torch::Tensor normalisedFeatures(const RankerDataset &data, const RankerModel &model) {
  const auto width = static_cast<std::int64_t>(model.inputs.size());
  torch::Tensor features = torch::empty({static_cast<std::int64_t>(data.samples.size()), width}, torch::kDouble);
  auto access = features.accessor<double, 2>();
  for (std::size_t s = 0; s < data.samples.size(); ++s) {
    const auto input = rankerInput(model, data.samples[s].features); // the daemon's own input
    for (std::size_t f = 0; f < input.size(); ++f)
      access[static_cast<std::int64_t>(s)][static_cast<std::int64_t>(f)] = input[f];
  }
  return features;
}

// Mean logistic pairwise loss: log(1 + exp(-(s_faster - s_slower))).
torch::Tensor pairLoss(const torch::Tensor &scores, const torch::Tensor &faster, const torch::Tensor &slower) {
  return torch::nn::functional::softplus(scores.index_select(0, slower) - scores.index_select(0, faster)).mean();
}

std::pair<torch::Tensor, torch::Tensor> pairIndices(const std::vector<RankPair> &pairs) {
  std::vector<std::int64_t> faster, slower;
  for (const auto &pair : pairs) {
    faster.push_back(static_cast<std::int64_t>(pair.faster));
    slower.push_back(static_cast<std::int64_t>(pair.slower));
  }
  return {torch::tensor(faster, torch::kLong), torch::tensor(slower, torch::kLong)};
}

// The monotone features' side of the model: which inputs, their signs, and
// the trained magnitudes (softplus of free parameters, so never of the wrong sign).
struct MonotonePart {
  torch::Tensor inputs; // [m] long: indices into the model's inputs
  torch::Tensor signs;  // [m] double
  torch::Tensor theta;  // [m] double, trained
  torch::Tensor keep;   // [width] double: 0 at the monotone inputs (the network never sees them)
  bool empty() const { return !inputs.defined() || inputs.numel() == 0; }
  torch::Tensor weights() const { return signs * torch::nn::functional::softplus(theta); }
  torch::Tensor score(torch::nn::Sequential &network, const torch::Tensor &features) const {
    if (empty())
      return network->forward(features).squeeze(1);
    return network->forward(features * keep).squeeze(1) + features.index_select(1, inputs).matmul(weights());
  }
};

MonotonePart monotonePart(const RankerModel &model, const std::vector<MonotoneFeature> &monotone) {
  MonotonePart part;
  if (monotone.empty())
    return part;
  std::vector<std::int64_t> inputs;
  std::vector<double> signs;
  std::vector<double> keep(model.inputs.size(), 1.0);
  for (const auto &term : monotone) {
    const auto at = std::find(model.inputs.begin(), model.inputs.end(), term.feature);
    if (at == model.inputs.end())
      throw std::invalid_argument("monotone feature '" + std::string(featureName(term.feature)) +
                                  "' is not among the inputs (the extended features need --features extended)");
    if (term.sign != 1 && term.sign != -1)
      throw std::invalid_argument("a monotone feature's sign is +1 or -1");
    const auto input = static_cast<std::int64_t>(at - model.inputs.begin());
    if (std::find(inputs.begin(), inputs.end(), input) != inputs.end())
      throw std::invalid_argument("monotone feature '" + std::string(featureName(term.feature)) + "' named twice");
    inputs.push_back(input);
    signs.push_back(term.sign);
    keep[static_cast<std::size_t>(input)] = 0.0;
  }
  part.inputs = torch::tensor(inputs, torch::kLong);
  part.signs = torch::tensor(signs, torch::kDouble);
  // softplus(-1) = 0.31 standard deviations of score per standard deviation of
  // the feature to start with: the data decides how much more.
  part.theta = torch::full({static_cast<std::int64_t>(inputs.size())}, -1.0, torch::kDouble).requires_grad_(true);
  part.keep = torch::tensor(keep, torch::kDouble);
  return part;
}

// The network's layers and the monotone terms into `model` (the monotone
// inputs' first-layer weights as 0: masked in training, checked on load).
void copyOut(torch::nn::Sequential &network, const MonotonePart &monotone, RankerModel &model) {
  model.layers.clear();
  for (auto &linear : linearLayers(network)) {
    const torch::Tensor weight = linear->weight.detach().contiguous();
    const torch::Tensor bias = linear->bias.detach().contiguous();
    DenseLayer layer;
    for (std::int64_t o = 0; o < weight.size(0); ++o) {
      std::vector<double> row(static_cast<std::size_t>(weight.size(1)));
      for (std::int64_t i = 0; i < weight.size(1); ++i)
        row[static_cast<std::size_t>(i)] = weight[o][i].item<double>();
      layer.weights.push_back(std::move(row));
      layer.bias.push_back(bias[o].item<double>());
    }
    model.layers.push_back(std::move(layer));
  }
  model.monotone.clear();
  if (monotone.empty())
    return;
  const torch::Tensor weights = monotone.weights().detach();
  for (std::int64_t t = 0; t < monotone.inputs.numel(); ++t) {
    const auto input = static_cast<std::size_t>(monotone.inputs[t].item<std::int64_t>());
    for (auto &row : model.layers.front().weights)
      row[input] = 0.0;
    model.monotone.push_back(MonotoneTerm{input, weights[t].item<double>()});
  }
}

} // namespace

std::vector<FeatureTransform> featureTransforms(bool logScale, const std::vector<std::size_t> &inputs) {
  std::vector<FeatureTransform> transforms(inputs.size(), FeatureTransform::Identity);
  if (logScale)
    for (std::size_t f = 0; f < inputs.size(); ++f)
      if (!isUnitIntervalFeature(inputs[f]))
        transforms[f] = FeatureTransform::SignedLog1p;
  return transforms;
}

namespace {

// Standardise the score over the tasks' evaluations (the same affine map of every network's output: the
// order is unchanged), so R_str is in standard deviations and lambda_str weighs it against R_ver on a
// known scale.
void standardiseScores(RankerModel &model, const RankerDataset &data, const std::vector<std::string> &tasks) {
  std::vector<double> scores;
  for (const auto &task : tasks)
    for (std::size_t s : data.samplesOf(task))
      scores.push_back(rankerScore(model, data.samples[s].features));
  double scoreMean = 0, scoreVariance = 0;
  for (double score : scores)
    scoreMean += score / static_cast<double>(scores.size());
  for (double score : scores)
    scoreVariance += (score - scoreMean) * (score - scoreMean) / static_cast<double>(scores.size());
  const double spread = std::sqrt(scoreVariance) > 1e-12 ? std::sqrt(scoreVariance) : 1.0;
  std::vector<RankerModel *> networks{&model};
  for (auto &member : model.ensemble)
    networks.push_back(&member);
  for (RankerModel *network : networks) {
    DenseLayer &output = network->layers.back();
    for (double &weight : output.weights.front())
      weight /= spread;
    output.bias.front() = (output.bias.front() - scoreMean) / spread;
    for (auto &term : network->monotone)
      term.weight /= spread;
  }
}

RankerModel trainNetwork(const RankerDataset &data, const std::vector<std::string> &tasks,
                         const RankerTrainingOptions &options, TrainingSummary *summary) {
  // Whole tasks are held back for early stopping, never single rows.
  std::vector<std::string> shuffled = tasks;
  std::mt19937_64 random(options.seed);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  std::size_t held =
      tasks.size() >= 3
          ? static_cast<std::size_t>(std::ceil(options.validationFraction * static_cast<double>(tasks.size())))
          : 0;
  held = std::min(held, tasks.size() - 2); // keep two tasks to train on
  const std::vector<std::string> validationTasks(shuffled.begin(), shuffled.begin() + static_cast<long>(held));
  const std::vector<std::string> trainTasks(shuffled.begin() + static_cast<long>(held), shuffled.end());

  RankerModel model;
  model.activation = options.activation;
  model.dataHash = data.hash;
  model.inputs = defaultInputs(options.extendedFeatures);
  if (options.ownFeatures)
    for (std::size_t i = kAllFeatureCount; i < kRankerFeatureCount; ++i)
      model.inputs.push_back(i);
  model.transform = featureTransforms(options.logScale, model.inputs);
  // mu and sigma of the training split, after the transform.
  // Over the known values only: an unknown one is not a measurement of 0.
  const std::size_t width = model.inputs.size();
  std::vector<std::size_t> count(width);
  std::vector<double> sum(width), squares(width);
  model.mean.assign(width, 0.0);
  model.stddev.assign(width, 1.0);
  for (const auto &task : trainTasks)
    for (std::size_t s : data.samplesOf(task))
      for (std::size_t f = 0; f < width; ++f) {
        const std::size_t feature = model.inputs[f];
        if (data.samples[s].features.isUnknown(feature))
          continue;
        const double value = transformFeature(model.transform[f], data.samples[s].features.valueAt(feature));
        ++count[f];
        sum[f] += value;
        squares[f] += value * value;
      }
  for (std::size_t f = 0; f < width; ++f) {
    const double n = static_cast<double>(std::max<std::size_t>(count[f], 1));
    model.mean[f] = sum[f] / n;
    const double variance = std::max(0.0, squares[f] / n - model.mean[f] * model.mean[f]);
    model.stddev[f] = std::sqrt(variance) > 1e-12 * std::max(1.0, std::abs(model.mean[f])) ? std::sqrt(variance) : 1.0;
  }

  const auto trainPairs = rankPairs(data, trainTasks, options.pairs, options.tieRatio);
  const auto validationPairs = rankPairs(data, validationTasks, PairMode::All, options.tieRatio);
  if (trainPairs.empty())
    throw std::invalid_argument("no training pair: every training task's variants run at the same speed");

  torch::manual_seed(options.seed);
  torch::nn::Sequential network =
      buildNetwork(static_cast<std::int64_t>(model.inputs.size()), options.hidden, options.activation);
  const MonotonePart monotone = monotonePart(model, options.monotone);
  // The monotone magnitudes are not decayed (decay would pull theta to 0,
  // i.e. towards a weight of ln 2, not towards none), and learn faster than
  // the network: one scalar each against a network whose output scale grows
  // through every weight at once. At the network's rate the scalar lagged and
  // early stopping ended training before it had grown (synthetic data, speed
  // falling with the feature: held-out pairwise accuracy 0.70, unconstrained
  // 0.95); at 50 times it is 0.94.
  std::vector<torch::optim::OptimizerParamGroup> groups{torch::optim::OptimizerParamGroup(network->parameters())};
  if (!monotone.empty())
    groups.emplace_back(std::vector<torch::Tensor>{monotone.theta},
                        std::make_unique<torch::optim::AdamWOptions>(
                            torch::optim::AdamWOptions(kMonotoneRateFactor * options.learningRate).weight_decay(0.0)));
  torch::optim::AdamW optimizer(std::move(groups),
                                torch::optim::AdamWOptions(options.learningRate).weight_decay(options.weightDecay));
  const torch::Tensor features = normalisedFeatures(data, model);
  const auto [trainFaster, trainSlower] = pairIndices(trainPairs);
  const bool validate = !validationPairs.empty();
  torch::Tensor validationFaster, validationSlower;
  if (validate)
    std::tie(validationFaster, validationSlower) = pairIndices(validationPairs);

  double bestLoss = std::numeric_limits<double>::infinity();
  int bestEpoch = 0, epoch = 0;
  double lastTrainLoss = 0;
  RankerModel best = model;
  for (epoch = 1; epoch <= options.epochs; ++epoch) {
    network->train();
    optimizer.zero_grad();
    torch::Tensor loss = pairLoss(monotone.score(network, features), trainFaster, trainSlower);
    loss.backward();
    optimizer.step();
    lastTrainLoss = loss.item<double>();
    if (!validate) {
      bestEpoch = epoch;
      continue;
    }
    torch::NoGradGuard noGrad;
    const double validationLoss =
        pairLoss(monotone.score(network, features), validationFaster, validationSlower).item<double>();
    if (validationLoss < bestLoss - 1e-9) {
      bestLoss = validationLoss;
      bestEpoch = epoch;
      copyOut(network, monotone, best);
    } else if (epoch - bestEpoch >= options.patience) {
      break;
    }
  }
  if (!validate) {
    copyOut(network, monotone, best);
    bestLoss = 0;
  }
  standardiseScores(best, data, trainTasks);
  if (summary) {
    summary->trainPairs = trainPairs.size();
    summary->validationPairs = validationPairs.size();
    summary->validationTasks = validationTasks;
    summary->epochsRun = std::min(epoch, options.epochs);
    summary->bestEpoch = bestEpoch;
    summary->trainLoss = lastTrainLoss;
    summary->validationLoss = bestLoss;
  }
  return best;
}

} // namespace

RankerModel trainRanker(const RankerDataset &data, const std::vector<std::string> &tasks,
                        const RankerTrainingOptions &options, TrainingSummary *summary) {
  if (options.ensemble < 1)
    throw std::invalid_argument("rank: an ensemble of one or more networks");
  RankerModel model = trainNetwork(data, tasks, options, summary);
  for (int k = 1; k < options.ensemble; ++k) {
    RankerTrainingOptions member = options;
    member.seed = options.seed + kEnsembleSeedStride * static_cast<std::uint64_t>(k);
    model.ensemble.push_back(trainNetwork(data, tasks, member, nullptr));
  }
  // Each member was standardised alone; their mean has a smaller spread: standardise the mean again,
  // over every training task's evaluations.
  if (!model.ensemble.empty())
    standardiseScores(model, data, tasks);
  return model;
}

namespace {

double torchNetworkScore(const RankerModel &model, const FeatureVector &features) {
  std::vector<int> hidden;
  for (std::size_t l = 0; l + 1 < model.layers.size(); ++l)
    hidden.push_back(static_cast<int>(model.layers[l].bias.size()));
  torch::nn::Sequential network =
      buildNetwork(static_cast<std::int64_t>(model.inputs.size()), hidden, model.activation);
  torch::NoGradGuard noGrad;
  auto layers = linearLayers(network);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const DenseLayer &layer = model.layers[l];
    for (std::size_t o = 0; o < layer.bias.size(); ++o) {
      layers[l]->bias[static_cast<std::int64_t>(o)] = layer.bias[o];
      for (std::size_t i = 0; i < layer.weights[o].size(); ++i)
        layers[l]->weight[static_cast<std::int64_t>(o)][static_cast<std::int64_t>(i)] = layer.weights[o][i];
    }
  }
  const auto normalised = rankerInput(model, features);
  torch::Tensor input = torch::empty({1, static_cast<std::int64_t>(normalised.size())}, torch::kDouble);
  for (std::size_t f = 0; f < normalised.size(); ++f)
    input[0][static_cast<std::int64_t>(f)] = normalised[f];
  double score = network->forward(input).item<double>();
  for (const auto &term : model.monotone)
    score += term.weight * input[0][static_cast<std::int64_t>(term.input)].item<double>();
  return score;
}

} // namespace

double torchRankerScore(const RankerModel &model, const FeatureVector &features) {
  return ensembleMeanScore(model, [&](const RankerModel &network) { return torchNetworkScore(network, features); });
}

} // namespace cudaperf
