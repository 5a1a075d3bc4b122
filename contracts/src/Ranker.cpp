#include "cudaperf/contracts/Ranker.h"

#include "cudaperf/contracts/JsonFieldReader.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace json = boost::json;

namespace {

const JsonFieldReader kReader([](const std::string &field, const std::string &why) {
  throw std::invalid_argument("ranker: field " + field + ": " + why);
});

[[noreturn]] void fail(const std::string &field, const std::string &why) { kReader.fail(field, why); }

std::vector<double> numbers(const json::value &value, const std::string &field) {
  return kReader.finiteNumbers(value, field);
}

const json::value &member(const json::object &object, const char *key, const std::string &field) {
  return kReader.required(object, key, field);
}

} // namespace

namespace {

// One network: its inputs, their normalisation, layers and monotone terms. `where` is the object a
// failure names its fields in ("" for the top level, "ensemble[k]" for a member).
RankerModel networkFromJson(const json::object &root, const std::string &where) {
  const std::string at = where.empty() ? "" : where + ".";
  const auto fail = [&at](const std::string &field, const std::string &why) { cudaperf::fail(at + field, why); };
  RankerModel model;
  // CudaPerf's 11 first, in their order (the hand mapping and old files rely
  // on it), then extended features, each once.
  const json::value &names = member(root, "features", where);
  if (!names.is_array() || names.get_array().size() < kFeatureCount)
    fail("features", "expected the " + std::to_string(kFeatureCount) + " feature names, then any extended ones");
  model.inputs.clear();
  for (std::size_t i = 0; i < names.get_array().size(); ++i) {
    const json::value &name = names.get_array()[i];
    const auto index = name.is_string() ? featureIndex(std::string_view(name.get_string())) : std::nullopt;
    if (i < kFeatureCount && index != i)
      fail("features[" + std::to_string(i) + "]", "expected '" + std::string(kFeatureNames[i]) + "'");
    if (i >= kFeatureCount && (!index || *index < kFeatureCount ||
                               std::find(model.inputs.begin(), model.inputs.end(), *index) != model.inputs.end()))
      fail("features[" + std::to_string(i) + "]", "expected an extended or own_ feature name, once");
    model.inputs.push_back(*index);
  }
  const std::size_t count = model.inputs.size();
  const auto mean = numbers(member(root, "mu", where), at + "mu");
  const auto stddev = numbers(member(root, "sigma", where), at + "sigma");
  if (mean.size() != count || stddev.size() != count)
    fail("mu/sigma", "expected " + std::to_string(count) + " values each (one per feature)");
  model.mean = mean;
  model.stddev = stddev;
  model.transform.assign(count, FeatureTransform::Identity);
  for (std::size_t i = 0; i < count; ++i)
    if (!(stddev[i] > 0))
      fail("sigma[" + std::to_string(i) + "]", "must be positive");
  if (const auto *transforms = root.if_contains("transform")) { // optional: identity
    if (!transforms->is_array() || transforms->get_array().size() != count)
      fail("transform", "expected one transform per feature");
    for (std::size_t i = 0; i < count; ++i) {
      const json::value &name = transforms->get_array()[i];
      if (name == "identity")
        model.transform[i] = FeatureTransform::Identity;
      else if (name == "signed_log1p")
        model.transform[i] = FeatureTransform::SignedLog1p;
      else
        fail("transform[" + std::to_string(i) + "]", "expected identity or signed_log1p");
    }
  }
  if (const auto *activation = root.if_contains("activation")) {
    if (!activation->is_string() || (activation->get_string() != "relu" && activation->get_string() != "tanh"))
      fail("activation", "expected relu or tanh");
    model.activation = std::string(activation->get_string());
  }
  const json::value &layers = member(root, "layers", where);
  if (!layers.is_array() || layers.get_array().empty())
    fail("layers", "expected a non-empty array");
  std::size_t inputs = count;
  for (std::size_t l = 0; l < layers.get_array().size(); ++l) {
    const std::string field = "layers[" + std::to_string(l) + "]";
    const std::string named = at + field;
    if (!layers.get_array()[l].is_object())
      fail(field, "must be an object");
    const json::object &layer = layers.get_array()[l].get_object();
    DenseLayer dense;
    dense.bias = numbers(member(layer, "bias", named), named + ".bias");
    const json::value &weights = member(layer, "weights", named);
    if (!weights.is_array() || weights.get_array().size() != dense.bias.size())
      fail(field + ".weights", "expected one row per output (" + std::to_string(dense.bias.size()) + ")");
    for (std::size_t o = 0; o < dense.bias.size(); ++o) {
      dense.weights.push_back(numbers(weights.get_array()[o], named + ".weights[" + std::to_string(o) + "]"));
      if (dense.weights.back().size() != inputs)
        fail(field + ".weights[" + std::to_string(o) + "]", "expected " + std::to_string(inputs) + " inputs");
    }
    inputs = dense.bias.size();
    model.layers.push_back(std::move(dense));
  }
  if (inputs != 1)
    fail("layers", "the last layer must have one output");
  if (const auto *terms = root.if_contains("monotone")) { // optional
    if (!terms->is_array())
      fail("monotone", "expected an array of {feature, weight}");
    for (std::size_t t = 0; t < terms->get_array().size(); ++t) {
      const std::string field = "monotone[" + std::to_string(t) + "]";
      const std::string named = at + field;
      const json::value &term = terms->get_array()[t];
      if (!term.is_object())
        fail(field, "expected an object {feature, weight}");
      const json::value &name = member(term.get_object(), "feature", named);
      const auto feature = name.is_string() ? featureIndex(std::string_view(name.get_string())) : std::nullopt;
      const auto at = feature ? std::find(model.inputs.begin(), model.inputs.end(), *feature) : model.inputs.end();
      if (at == model.inputs.end())
        fail(field + ".feature", "expected the name of one of the model's features");
      const double weight = kReader.finiteNumber(member(term.get_object(), "weight", named), named + ".weight");
      MonotoneTerm monotone{static_cast<std::size_t>(at - model.inputs.begin()), weight};
      for (const auto &other : model.monotone)
        if (other.input == monotone.input)
          fail(field + ".feature", "named twice");
      for (const auto &row : model.layers.front().weights)
        if (row[monotone.input] != 0)
          fail(field, "layers[0] must give '" + std::string(name.get_string()) +
                          "' weight 0: a monotone feature enters through its own term only");
      model.monotone.push_back(monotone);
    }
  }
  return model;
}

} // namespace

RankerModel rankerFromJson(const json::value &document) {
  if (!document.is_object())
    fail("(top level)", "must be an object");
  const json::object &root = document.get_object();
  RankerModel model = networkFromJson(root, "");
  if (const auto *relative = root.if_contains("relative_to_baseline")) { // optional: absolute inputs
    if (!relative->is_bool())
      fail("relative_to_baseline", "expected true or false");
    model.relativeToBaseline = relative->get_bool();
  }
  // The own 11 exist only beside relative ones (featuresRelativeToBaseline fills them).
  const auto readsOwn = [](const RankerModel &network) {
    return std::any_of(network.inputs.begin(), network.inputs.end(),
                       [](std::size_t index) { return index >= kAllFeatureCount; });
  };
  if (!model.relativeToBaseline && readsOwn(model))
    fail("features", "own_ features need \"relative_to_baseline\": true");
  if (const auto *members = root.if_contains("ensemble")) { // optional: one network
    if (!members->is_array())
      fail("ensemble", "expected an array of networks");
    for (std::size_t k = 0; k < members->get_array().size(); ++k) {
      const std::string at = "ensemble[" + std::to_string(k) + "]";
      const json::value &member = members->get_array()[k];
      if (!member.is_object())
        fail(at, "must be an object");
      if (member.get_object().contains("ensemble"))
        fail(at + ".ensemble", "a member has no members of its own");
      RankerModel network = networkFromJson(member.get_object(), at);
      if (network.inputs != model.inputs)
        fail(at + ".features", "expected the same features as the top level's, in its order");
      model.ensemble.push_back(std::move(network));
    }
  }
  if (const auto *hash = root.if_contains("data_hash"); hash && hash->is_string())
    model.dataHash = std::string(hash->get_string());
  if (const auto *metrics = root.if_contains("metrics"))
    model.metrics = *metrics;
  return model;
}

RankerModel loadRanker(const std::filesystem::path &file) {
  std::ifstream stream(file);
  if (!stream)
    throw std::invalid_argument("ranker: cannot read " + file.string());
  std::stringstream text;
  text << stream.rdbuf();
  boost::system::error_code error;
  const json::value document = json::parse(text.str(), error);
  if (error)
    throw std::invalid_argument("ranker: " + file.string() + ": invalid JSON: " + error.message());
  return rankerFromJson(document);
}

namespace {

json::object networkToJson(const RankerModel &model) {
  json::array names, transforms, mean, stddev, layers;
  for (std::size_t i = 0; i < model.inputs.size(); ++i) {
    names.push_back(json::value(std::string(featureName(model.inputs[i]))));
    transforms.push_back(model.transform[i] == FeatureTransform::SignedLog1p ? "signed_log1p" : "identity");
    mean.push_back(model.mean[i]);
    stddev.push_back(model.stddev[i]);
  }
  for (const auto &layer : model.layers) {
    json::array weights;
    for (const auto &row : layer.weights)
      weights.push_back(json::value_from(row));
    layers.push_back(json::object{{"weights", weights}, {"bias", json::value_from(layer.bias)}});
  }
  json::object document{{"features", names}, {"transform", transforms},        {"mu", mean},
                        {"sigma", stddev},   {"activation", model.activation}, {"layers", layers}};
  if (!model.monotone.empty()) {
    json::array terms;
    for (const auto &term : model.monotone)
      terms.push_back(
          json::object{{"feature", std::string(featureName(model.inputs[term.input]))}, {"weight", term.weight}});
    document["monotone"] = std::move(terms);
  }
  return document;
}

} // namespace

json::value rankerToJson(const RankerModel &model) {
  json::object document = networkToJson(model);
  if (!model.ensemble.empty()) {
    json::array members;
    for (const auto &member : model.ensemble)
      members.push_back(networkToJson(member));
    document["ensemble"] = std::move(members);
  }
  if (model.relativeToBaseline)
    document["relative_to_baseline"] = true;
  document["data_hash"] = model.dataHash;
  document["metrics"] = model.metrics;
  return document;
}

double transformFeature(FeatureTransform transform, double value) {
  return transform == FeatureTransform::SignedLog1p ? std::copysign(std::log1p(std::abs(value)), value) : value;
}

std::vector<std::size_t> defaultInputs(bool extended) {
  std::vector<std::size_t> inputs;
  for (std::size_t i = 0; i < (extended ? kAllFeatureCount : kFeatureCount); ++i)
    inputs.push_back(i);
  return inputs;
}

bool isUnitIntervalFeature(std::size_t index) {
  const std::string_view name = featureName(index >= kAllFeatureCount ? index - kAllFeatureCount : index);
  return name == "coal" || name == "occ" || name == "div";
}

FeatureVector featuresRelativeToBaseline(const FeatureVector &candidate, const FeatureVector &baseline) {
  FeatureVector relative = candidate;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    relative[i] = isUnitIntervalFeature(i) ? candidate[i] - baseline[i]
                                           : transformFeature(FeatureTransform::SignedLog1p, candidate[i]) -
                                                 transformFeature(FeatureTransform::SignedLog1p, baseline[i]);
    if (baseline.isUnknown(i))
      relative.markUnknown(i);
    relative.own[i] = candidate[i];
    if (candidate.isUnknown(i))
      relative.markUnknown(kAllFeatureCount + i);
  }
  return relative;
}

FeatureVector rankerFeatures(const RankerModel &model, const FeatureVector &candidate, const FeatureVector *baseline) {
  if (!model.relativeToBaseline)
    return candidate;
  if (!baseline)
    throw std::invalid_argument("this ranker scores a kernel against its task's baseline, and none was given");
  return featuresRelativeToBaseline(candidate, *baseline);
}

std::vector<double> rankerInput(const RankerModel &model, const FeatureVector &features) {
  std::vector<double> input(model.inputs.size());
  for (std::size_t i = 0; i < model.inputs.size(); ++i) {
    const std::size_t feature = model.inputs[i];
    // Unknown: the training mean, which moves the score neither way.
    input[i] =
        features.isUnknown(feature)
            ? 0.0
            : (transformFeature(model.transform[i], features.valueAt(feature)) - model.mean[i]) / model.stddev[i];
  }
  return input;
}

namespace {

double networkScore(const RankerModel &model, const FeatureVector &features) {
  const auto input = rankerInput(model, features);
  std::vector<double> activations(input.begin(), input.end());
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const DenseLayer &layer = model.layers[l];
    std::vector<double> next(layer.bias);
    for (std::size_t o = 0; o < next.size(); ++o)
      for (std::size_t i = 0; i < activations.size(); ++i)
        next[o] += layer.weights[o][i] * activations[i];
    if (l + 1 < model.layers.size())
      for (double &value : next)
        value = model.activation == "tanh" ? std::tanh(value) : std::max(0.0, value);
    activations = std::move(next);
  }
  double score = activations.front();
  for (const auto &term : model.monotone)
    score += term.weight * input[term.input];
  return score;
}

} // namespace

double ensembleMeanScore(const RankerModel &model, const std::function<double(const RankerModel &)> &networkScore) {
  double sum = networkScore(model);
  for (const auto &member : model.ensemble)
    sum += networkScore(member);
  return sum / static_cast<double>(1 + model.ensemble.size());
}

double rankerScore(const RankerModel &model, const FeatureVector &features) {
  return ensembleMeanScore(model, [&](const RankerModel &network) { return networkScore(network, features); });
}

std::vector<LaunchShape> standingLaunchShapes(const json::object &report) {
  std::vector<LaunchShape> shapes;
  const json::value *complete = report.if_contains("entry_launches_complete");
  if (complete && !complete->is_bool())
    throw std::invalid_argument("entry_launches_complete: expected true or false");
  const json::value *entryLaunches = report.if_contains("entry_launches");
  if (!complete || !complete->get_bool() || !entryLaunches || entryLaunches->is_null())
    return shapes;
  if (!entryLaunches->is_array())
    throw std::invalid_argument("entry_launches: expected a list of launches");
  for (const json::value &entry : entryLaunches->get_array()) {
    const std::string at = "entry_launches[" + std::to_string(shapes.size()) + "]";
    if (!entry.is_object())
      throw std::invalid_argument(at + ": expected an object");
    auto positive = [&](const char *key) {
      const json::value *value = entry.get_object().if_contains(key);
      if (!value || !value->is_number() || !std::isfinite(value->to_number<double>()) ||
          !(value->to_number<double>() > 0))
        throw std::invalid_argument(at + "." + key + " must be a positive finite number");
      return value->to_number<double>();
    };
    const json::value *certain = entry.get_object().if_contains("certain");
    if (certain && !certain->is_bool())
      throw std::invalid_argument(at + ".certain: expected true or false");
    shapes.push_back({positive("blocks"), positive("threads"), !certain || certain->get_bool()});
  }
  return shapes;
}

std::vector<FeatureVector> launchAlternatives(const FeatureVector &features,
                                              const std::vector<LaunchShape> &sizedLaunches) {
  std::vector<FeatureVector> alternatives{features};
  const std::size_t blocks = *featureIndex("blocks"), threads = *featureIndex("threads");
  if (!features.isUnknown(blocks) || !features.isUnknown(threads))
    return alternatives;
  // A certain launch runs: whatever stands is at least as large as the largest of them.
  double floor = 0;
  for (const LaunchShape &launch : sizedLaunches)
    if (launch.certain)
      floor = std::max(floor, launch.threads);
  for (const LaunchShape &launch : sizedLaunches) {
    if (launch.threads < floor)
      continue; // smaller than a launch that runs: never the largest
    FeatureVector standing = features;
    standing.valueAt(blocks) = launch.blocks;
    standing.valueAt(threads) = launch.threads;
    standing.unknown &= ~((1u << blocks) | (1u << threads));
    alternatives.push_back(standing);
  }
  return alternatives;
}

double lowestScoreAcrossLaunches(const FeatureVector &features, const std::vector<LaunchShape> &sizedLaunches,
                                 const std::function<double(const FeatureVector &)> &score) {
  double lowest = std::numeric_limits<double>::infinity();
  for (const FeatureVector &alternative : launchAlternatives(features, sizedLaunches))
    lowest = std::min(lowest, score(alternative));
  return lowest;
}

double rankerScoreAcrossLaunches(const RankerModel &model, const FeatureVector &features,
                                 const std::vector<LaunchShape> &sizedLaunches) {
  return lowestScoreAcrossLaunches(features, sizedLaunches,
                                   [&](const FeatureVector &vector) { return rankerScore(model, vector); });
}

} // namespace cudaperf
