// The ranker's forward pass (the daemon's R_str) against hand-computed
// values, and the validation of ranker.json.
#include "cudaperf/contracts/Ranker.h"
#include "cudaperf/contracts/ReportJson.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>

using namespace cudaperf;
namespace json = boost::json;

namespace {

json::object document() {
  json::array names, mu, sigma, w1, w2;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    names.push_back(json::value(std::string(kFeatureNames[i])));
    mu.push_back(i == 0 ? 0.5 : 0.0);
    sigma.push_back(i == 0 ? 0.25 : 1.0);
  }
  // Hidden layer of 2: h0 = relu(coal_hat), h1 = relu(-coal_hat + occ_hat); score = 2 h0 - h1 + 0.5.
  json::array row0(kFeatureCount, 0.0), row1(kFeatureCount, 0.0), output;
  output.push_back(json::array{2.0, -1.0}); // one row (a braced array of an array would copy it)
  row0[0] = 1.0;
  row1[0] = -1.0;
  row1[2] = 1.0;
  return json::object{{"features", names},
                      {"mu", mu},
                      {"sigma", sigma},
                      {"activation", "relu"},
                      {"layers", json::array{json::object{{"weights", json::array{row0, row1}}, {"bias", {0.0, 0.0}}},
                                             json::object{{"weights", output}, {"bias", {0.5}}}}}};
}

// What rankerFromJson says of a document: its error, or "accepted".
std::string message(const json::object &doc) {
  try {
    rankerFromJson(doc);
  } catch (const std::invalid_argument &error) {
    return std::string(error.what());
  }
  return std::string("accepted");
}

} // namespace

TEST(Ranker, ForwardPassMatchesHandComputedValues) {
  const RankerModel model = rankerFromJson(document());
  FeatureVector features;
  features.coal = 1.0; // coal_hat = (1 - 0.5) / 0.25 = 2
  features.occ = 1.0;  // occ_hat = 1
  // h0 = relu(2) = 2, h1 = relu(-2 + 1) = 0: score = 4 - 0 + 0.5.
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 4.5);
  features.coal = 0.25; // coal_hat = -1: h0 = 0, h1 = relu(1 + 1) = 2: score = -2 + 0.5
  EXPECT_DOUBLE_EQ(rankerScore(model, features), -1.5);
}

TEST(Ranker, AnUnknownFeatureCountsAsItsTrainingMean) {
  const RankerModel model = rankerFromJson(document());
  FeatureVector features;
  features.coal = 1.0; // coal_hat = 2
  features.occ = 0.1;  // CudaPerf's value for an unknown block size: occ_hat = 0.1
  // Known, occ 0.1 counts: h1 = relu(-2 + 0.1) = 0 here, so move coal to make it count.
  features.coal = 0.25; // coal_hat = -1: h0 = 0, h1 = relu(1 + 0.1) = 1.1: score = -1.1 + 0.5
  EXPECT_DOUBLE_EQ(rankerScore(model, features), -0.6);
  // Unknown: occ_hat = 0 (mu), h1 = relu(1 + 0) = 1: score = -1 + 0.5, whatever the value says.
  features.markUnknown(*featureIndex("occ"));
  EXPECT_DOUBLE_EQ(rankerInput(model, features)[2], 0.0);
  EXPECT_DOUBLE_EQ(rankerScore(model, features), -0.5);
  features.occ = 123.0;
  EXPECT_DOUBLE_EQ(rankerScore(model, features), -0.5);
}

TEST(Ranker, UnknownFeatureNamesRoundTripAndBadNamesAreErrors) {
  FeatureVector features;
  features.markUnknown(*featureIndex("tpb"));
  features.markUnknown(*featureIndex("occ"));
  const json::array names = unknownFeaturesToJson(features);
  EXPECT_EQ(json::serialize(names), R"(["occ","tpb"])"); // in phi's order
  FeatureVector read;
  const json::value value = names;
  readUnknownFeatures(&value, read);
  EXPECT_EQ(read.unknown, features.unknown);
  readUnknownFeatures(nullptr, read); // absent: nothing more
  EXPECT_EQ(read.unknown, features.unknown);
  const json::value bad = json::array{"occupancy"};
  EXPECT_THROW(readUnknownFeatures(&bad, read), std::invalid_argument);
  const json::value notAList = "occ";
  EXPECT_THROW(readUnknownFeatures(&notAList, read), std::invalid_argument);
}

TEST(Ranker, ExtendedInputsAfterTheElevenByName) {
  json::object doc = document();
  doc["features"].as_array().push_back("bank");
  doc["mu"].as_array().push_back(1.0);
  doc["sigma"].as_array().push_back(2.0);
  // The hidden layer reads bank_hat too: h0 = relu(coal_hat - bank_hat).
  auto &rows = doc["layers"].as_array()[0].as_object()["weights"].as_array();
  rows[0].as_array().push_back(-1.0);
  rows[1].as_array().push_back(0.0);
  const RankerModel model = rankerFromJson(doc);
  ASSERT_EQ(model.inputs.size(), kFeatureCount + 1);
  EXPECT_EQ(model.inputs.back(), *featureIndex("bank"));
  FeatureVector features;
  features.coal = 1.0;        // coal_hat 2
  features.extended[0] = 3.0; // bank 3: bank_hat = (3 - 1) / 2 = 1
  EXPECT_DOUBLE_EQ(rankerInput(model, features).back(), 1.0);
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 2 * 1.0 - 0.0 + 0.5); // h0 = 1, h1 = relu(-2) = 0
  features.markUnknown(*featureIndex("bank"));                         // an older report: neutral
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 2 * 2.0 + 0.5);
  // Written back with its names.
  EXPECT_EQ(rankerFromJson(rankerToJson(model)).inputs, model.inputs);
  // A CudaPerf name after the 11, a repeat, or an unknown name: refused.
  for (const char *bad : {"coal", "bank", "banks"}) {
    json::object twice = doc;
    twice["features"].as_array().push_back(json::value(bad));
    twice["mu"].as_array().push_back(0.0);
    twice["sigma"].as_array().push_back(1.0);
    try {
      rankerFromJson(twice);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument &error) {
      // Refused for its name, before the layers' widths are looked at.
      EXPECT_NE(std::string(error.what()).find("features[12]"), std::string::npos) << error.what();
    }
  }
}

TEST(Ranker, TanhActivation) {
  json::object doc = document();
  doc["activation"] = "tanh";
  const RankerModel model = rankerFromJson(doc);
  FeatureVector features;
  features.coal = 1.0;
  features.occ = 1.0;
  EXPECT_NEAR(rankerScore(model, features), 2 * std::tanh(2.0) - std::tanh(-1.0) + 0.5, 1e-12);
}

TEST(Ranker, RoundTrip) {
  const RankerModel model = rankerFromJson(document());
  const RankerModel again = rankerFromJson(rankerToJson(model));
  FeatureVector features;
  features.coal = 0.7;
  features.occ = 0.4;
  features.ai = 3;
  EXPECT_DOUBLE_EQ(rankerScore(model, features), rankerScore(again, features));
}

TEST(Ranker, ErrorsNameTheField) {
  json::object doc = document();
  doc["features"].as_array()[3] = "divergence";
  EXPECT_NE(message(doc).find("features[3]"), std::string::npos) << message(doc);
  doc = document();
  doc["sigma"].as_array()[1] = 0.0;
  EXPECT_NE(message(doc).find("sigma[1]"), std::string::npos);
  doc = document();
  doc["layers"].as_array()[0].as_object()["weights"].as_array()[1].as_array().pop_back();
  EXPECT_NE(message(doc).find("layers[0].weights[1]"), std::string::npos);
  doc = document();
  doc["layers"].as_array().pop_back();
  EXPECT_NE(message(doc).find("one output"), std::string::npos);
  doc = document();
  doc["mu"].as_array()[0] = "x";
  EXPECT_NE(message(doc).find("mu[0]"), std::string::npos);
  doc = document();
  doc.erase("layers");
  EXPECT_NE(message(doc).find("layers"), std::string::npos);
}

// An ensemble: the mean of its networks' scores, each with its own normalisation.
TEST(Ranker, AnEnsembleScoresTheMeanOfItsNetworks) {
  json::object doc = document();
  json::object member = document();
  member["layers"].as_array()[1].as_object()["bias"] = json::array{2.5}; // 2 above the first network
  member["mu"].as_array()[0] = 0.25; // coal_hat = (1 - 0.25) / 0.25 = 3: h0 = 3, h1 = relu(-3 + 1) = 0
  doc["ensemble"] = json::array{member};
  const RankerModel model = rankerFromJson(doc);
  ASSERT_EQ(model.ensemble.size(), 1u);
  FeatureVector features;
  features.coal = 1.0;
  features.occ = 1.0;
  // First network 4.5 (above); the member 2 * 3 - 0 + 2.5 = 8.5; their mean 6.5.
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 6.5);
  const RankerModel again = rankerFromJson(rankerToJson(model));
  EXPECT_DOUBLE_EQ(rankerScore(again, features), 6.5);
}

TEST(Ranker, AnEnsembleMembersErrorsNameIt) {
  json::object member = document();
  member["sigma"].as_array()[1] = 0.0;
  json::object doc = document();
  doc["ensemble"] = json::array{document(), member};
  EXPECT_NE(message(doc).find("ensemble[1].sigma[1]"), std::string::npos) << message(doc);
  member = document();
  member["features"].as_array().push_back("bank");
  member["mu"].as_array().push_back(0.0);
  member["sigma"].as_array().push_back(1.0);
  for (auto &row : member["layers"].as_array()[0].as_object()["weights"].as_array())
    row.as_array().push_back(0.0);
  doc["ensemble"] = json::array{member};
  EXPECT_NE(message(doc).find("ensemble[0].features"), std::string::npos) << message(doc);
  member = document();
  member.erase("layers");
  doc["ensemble"] = json::array{member};
  EXPECT_NE(message(doc).find("ensemble[0].layers"), std::string::npos) << message(doc);
  member = document();
  member["ensemble"] = json::array{document()};
  doc["ensemble"] = json::array{member};
  EXPECT_NE(message(doc).find("no members of its own"), std::string::npos) << message(doc);
  doc["ensemble"] = json::object{};
  EXPECT_NE(message(doc).find("ensemble"), std::string::npos) << message(doc);
}

// The document above (the network ignores every feature but coal and occ),
// with a monotone term of weight -0.5 on div (input 3).
namespace {
json::object withMonotoneDiv(double weight) {
  json::object doc = document();
  doc["monotone"] = json::array{json::object{{"feature", "div"}, {"weight", weight}}};
  return doc;
}
} // namespace

TEST(Ranker, AMonotoneTermAddsItsSignedWeightTimesPhiHat) {
  const RankerModel model = rankerFromJson(withMonotoneDiv(-0.5));
  ASSERT_EQ(model.monotone.size(), 1u);
  EXPECT_EQ(model.monotone[0].input, 3u);
  FeatureVector features;
  features.coal = 1.0; // the network's 4.5, as in ForwardPassMatchesHandComputedValues
  features.occ = 1.0;
  features.div = 3.0; // div_hat = (3 - 0) / 1: score = 4.5 - 0.5 * 3
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 3.0);
  // Monotone: every step up in div lowers the score by the same 0.5, whatever else holds.
  for (double coal : {0.0, 0.3, 1.0}) {
    features.coal = coal;
    features.div = 1.0;
    const double lower = rankerScore(model, features);
    features.div = 2.0;
    EXPECT_DOUBLE_EQ(lower - rankerScore(model, features), 0.5);
  }
  // Unknown: its training mean, the term adds nothing.
  features.coal = 1.0;
  features.markUnknown(*featureIndex("div"));
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 4.5);
  // It survives the export.
  const RankerModel again = rankerFromJson(rankerToJson(model));
  ASSERT_EQ(again.monotone.size(), 1u);
  EXPECT_DOUBLE_EQ(again.monotone[0].weight, -0.5);
  EXPECT_EQ(again.monotone[0].input, 3u);
}

TEST(Ranker, AMonotoneFeatureTheNetworkAlsoSeesIsRefused) {
  // coal (input 0) has weight 1 in the first layer: not monotone by construction.
  json::object doc = document();
  doc["monotone"] = json::array{json::object{{"feature", "coal"}, {"weight", 1.0}}};
  EXPECT_NE(message(doc).find("monotone[0]"), std::string::npos) << message(doc);
  EXPECT_NE(message(doc).find("weight 0"), std::string::npos) << message(doc);
  // Not one of the model's inputs (the extended `bank` in an 11-feature model), twice, not a number.
  doc = document();
  doc["monotone"] = json::array{json::object{{"feature", "bank"}, {"weight", -1.0}}};
  EXPECT_NE(message(doc).find("monotone[0].feature"), std::string::npos) << message(doc);
  doc = withMonotoneDiv(-0.5);
  doc["monotone"].as_array().push_back(json::object{{"feature", "div"}, {"weight", -0.1}});
  EXPECT_NE(message(doc).find("named twice"), std::string::npos) << message(doc);
  doc = withMonotoneDiv(-0.5);
  doc["monotone"].as_array()[0].as_object()["weight"] = "heavy";
  EXPECT_NE(message(doc).find("monotone[0].weight"), std::string::npos) << message(doc);
  doc = document();
  doc["monotone"] = json::object{};
  EXPECT_NE(message(doc).find("monotone"), std::string::npos) << message(doc);
}

namespace {
// document() with blocks and threads after the eleven (mu 0, sigma 1, identity):
// h0 = relu(coal_hat - threads), h1 = relu(-coal_hat + occ_hat + blocks); score = 2 h0 - h1 + 0.5.
RankerModel launchShapeModel() {
  json::object doc = document();
  for (const char *name : {"blocks", "threads"}) {
    doc["features"].as_array().push_back(json::value(name));
    doc["mu"].as_array().push_back(0.0);
    doc["sigma"].as_array().push_back(1.0);
  }
  auto &rows = doc["layers"].as_array()[0].as_object()["weights"].as_array();
  rows[0].as_array().push_back(0.0);  // h0: blocks
  rows[0].as_array().push_back(-1.0); // h0: threads
  rows[1].as_array().push_back(1.0);  // h1: blocks
  rows[1].as_array().push_back(0.0);  // h1: threads
  return rankerFromJson(doc);
}

FeatureVector doubtedWalk() {
  FeatureVector features;
  features.coal = 1.0; // coal_hat 2
  features.occ = 1.0;  // occ_hat 1
  features.markUnknown(*featureIndex("blocks"));
  features.markUnknown(*featureIndex("threads"));
  return features;
}
} // namespace

TEST(Ranker, ADoubtedWalkScoresAtItsLowestSizedLaunch) {
  const RankerModel model = launchShapeModel();
  const FeatureVector features = doubtedWalk();
  // Unknown: blocks = threads = 0 (the mean): h0 = 2, h1 = relu(-1) = 0: 4.5.
  EXPECT_DOUBLE_EQ(rankerScore(model, features), 4.5);
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, {}), 4.5);
  // Launch A (1 block, 1 thread): h0 = 1, h1 = 0: 2.5. Launch B (3 blocks, 0.5 threads): h0 = 1.5,
  // h1 = relu(-2 + 1 + 3) = 2: 3 - 2 + 0.5 = 1.5. The lowest of 4.5, 2.5 and 1.5.
  const std::vector<LaunchShape> launches{{1, 1, false}, {3, 0.5, false}}; // either may be the one that runs
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, launches), 1.5);
  const std::vector<FeatureVector> alternatives = launchAlternatives(features, launches);
  ASSERT_EQ(alternatives.size(), 3u);
  EXPECT_EQ(alternatives[0].unknown, features.unknown);
  EXPECT_FALSE(alternatives[2].isUnknown(*featureIndex("blocks")));
  EXPECT_DOUBLE_EQ(alternatives[2].valueAt(*featureIndex("blocks")), 3);
  EXPECT_DOUBLE_EQ(alternatives[2].valueAt(*featureIndex("threads")), 0.5);
  // One launch (1 block, 0.25 threads): h0 = 1.75, h1 = 0: 4.0.
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, {{1, 0.25}}), 4.0);
}

TEST(Ranker, ALaunchSmallerThanOneThatRunsNeverStands) {
  const RankerModel model = launchShapeModel();
  const FeatureVector features = doubtedWalk();
  // Launch A (1 block, 1 thread) runs; B (3 blocks, 0.5 threads) may: B is smaller than A, so A stands
  // (2.5), B's 1.5 is not taken.
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, {{1, 1, true}, {3, 0.5, false}}), 2.5);
  EXPECT_EQ(launchAlternatives(features, {{1, 1, true}, {3, 0.5, false}}).size(), 2u); // the features, and A
  // A larger launch that may run may stand: (3 blocks, 2 threads): h0 = 0, h1 = 2: -1.5.
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, {{1, 1, true}, {3, 2, false}}), -1.5);
  // A certain launch smaller than another certain one never stands either: (1, 1) and (3, 0.5) both run.
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, {{1, 1, true}, {3, 0.5, true}}), 2.5);
}

TEST(Ranker, SizedLaunchesChangeNothingWhereTheShapeIsKnown) {
  const RankerModel model = launchShapeModel();
  FeatureVector known = doubtedWalk();
  known.unknown = 0;
  known.valueAt(*featureIndex("blocks")) = 0;
  known.valueAt(*featureIndex("threads")) = 0.5; // h0 = 1.5: 3.5
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, known, {{3, 0.5}, {1, 1}}), 3.5);
  // One of the two unknown is not a doubted walk (an older report's partial vector): as it is.
  FeatureVector partial = doubtedWalk();
  partial.unknown = 0;
  partial.markUnknown(*featureIndex("blocks"));
  EXPECT_EQ(launchAlternatives(partial, {{1, 1}}).size(), 1u);
}

TEST(Ranker, AModelWithoutLaunchInputsIsNotMovedByThem) {
  // document() reads the eleven only: every alternative scores alike.
  const RankerModel model = rankerFromJson(document());
  const FeatureVector features = doubtedWalk();
  EXPECT_DOUBLE_EQ(rankerScoreAcrossLaunches(model, features, {{1, 32}, {1 << 20, 1 << 28}}),
                   rankerScore(model, features));
}

TEST(Ranker, OnlyAWalkThatSizedEveryLaunchHasStandingLaunches) {
  json::object report = json::parse(R"({"entry_launches": [{"kernel": "k", "location": "a.cu:3:1",
      "blocks": 2097152, "threads_per_block": 32, "threads": 67108864, "loop_depth": 0},
      {"blocks": 1, "threads": 32, "certain": false}], "entry_launches_complete": true})")
                            .as_object();
  const std::vector<LaunchShape> shapes = standingLaunchShapes(report);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(shapes[0].blocks, 2097152);
  EXPECT_DOUBLE_EQ(shapes[0].threads, 67108864);
  EXPECT_DOUBLE_EQ(shapes[1].threads, 32);
  EXPECT_TRUE(shapes[0].certain); // absent: true (a report before the flag lists certain launches alike)
  EXPECT_FALSE(shapes[1].certain);
  // A launch the walk did not size (a grid from the SM count) could be the largest: none stands.
  report["entry_launches_complete"] = false;
  EXPECT_TRUE(standingLaunchShapes(report).empty());
  report.erase("entry_launches_complete"); // a report of an analysis before the flag
  EXPECT_TRUE(standingLaunchShapes(report).empty());
  EXPECT_TRUE(standingLaunchShapes(json::object{}).empty());
  for (const char *bad : {R"({"entry_launches_complete": true, "entry_launches": {"blocks": 1}})",
                          R"({"entry_launches_complete": true, "entry_launches": [{"blocks": 0, "threads": 32}]})",
                          R"({"entry_launches_complete": true, "entry_launches": [{"blocks": 1}]})",
                          R"({"entry_launches_complete": true, "entry_launches": [{"blocks": 1, "threads": "32"}]})",
                          R"({"entry_launches_complete": true, "entry_launches": [7]})",
                          R"({"entry_launches_complete": "yes", "entry_launches": []})",
                          R"({"entry_launches_complete": true, "entry_launches": [{"blocks": 1, "threads": 2,
                              "certain": 1}]})"}) {
    EXPECT_THROW(standingLaunchShapes(json::parse(bad).as_object()), std::invalid_argument) << bad;
  }
}

// Task-relative inputs (docs/ranker.md "Scored against the task's baseline"), by hand:
// log1p(64) - log1p(16) = ln(65/17); coal 0.9 - 0.5; a count of 0 against 3: -ln 4.
TEST(RankerRelative, TheElevenAgainstTheBaselineByHand) {
  FeatureVector candidate, baseline;
  candidate.coal = 0.9, baseline.coal = 0.5;
  candidate.occ = 0.5, baseline.occ = 1.0;
  candidate.gmem = 64, baseline.gmem = 16;
  candidate.sync = 0, baseline.sync = 3;
  candidate.ai = -2, baseline.ai = 0;                  // signed: -ln 3
  candidate.extended[0] = 4, baseline.extended[0] = 1; // bank: the candidate's own
  const FeatureVector relative = featuresRelativeToBaseline(candidate, baseline);
  EXPECT_NEAR(relative.coal, 0.4, 1e-12);
  EXPECT_NEAR(relative.occ, -0.5, 1e-12);
  EXPECT_NEAR(relative.gmem, std::log(65.0 / 17.0), 1e-12);
  EXPECT_NEAR(relative.sync, -std::log(4.0), 1e-12);
  EXPECT_NEAR(relative.ai, -std::log(3.0), 1e-12);
  EXPECT_EQ(relative.tpb, 0.0); // 0 against 0
  EXPECT_EQ(relative.extended[0], 4.0);
  // The baseline against itself: every one of the 11 is 0.
  const FeatureVector self = featuresRelativeToBaseline(candidate, candidate);
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    EXPECT_EQ(self[i], 0.0) << kFeatureNames[i];
}

TEST(RankerRelative, UnknownOnEitherSideIsUnknown) {
  FeatureVector candidate, baseline;
  const std::size_t tpb = *featureIndex("tpb"), occ = *featureIndex("occ"), blocks = *featureIndex("blocks");
  candidate.markUnknown(tpb);
  baseline.markUnknown(occ);
  baseline.markUnknown(blocks); // an extended feature stays the candidate's, known or not
  const FeatureVector relative = featuresRelativeToBaseline(candidate, baseline);
  EXPECT_TRUE(relative.isUnknown(tpb));
  EXPECT_TRUE(relative.isUnknown(occ));
  EXPECT_FALSE(relative.isUnknown(blocks));
  EXPECT_FALSE(relative.isUnknown(*featureIndex("coal")));
}

TEST(RankerRelative, TheFlagIsReadWrittenAndNeedsABaseline) {
  json::object doc = document();
  EXPECT_FALSE(rankerFromJson(doc).relativeToBaseline);
  doc["relative_to_baseline"] = "yes";
  EXPECT_NE(message(doc).find("relative_to_baseline"), std::string::npos) << message(doc);
  doc["relative_to_baseline"] = true;
  const RankerModel model = rankerFromJson(doc);
  ASSERT_TRUE(model.relativeToBaseline);
  EXPECT_TRUE(rankerFromJson(rankerToJson(model)).relativeToBaseline);
  EXPECT_FALSE(rankerToJson(rankerFromJson(document())).as_object().contains("relative_to_baseline"));

  FeatureVector candidate, baseline;
  candidate.coal = 0.75, baseline.coal = 0.5;
  EXPECT_THROW(rankerFeatures(model, candidate, nullptr), std::invalid_argument);
  // coal_hat = (0.25 - 0.5) / 0.25 = -1: h0 = 0, h1 = relu(1 + 0) = 1; score = 0 - 1 + 0.5.
  EXPECT_NEAR(rankerScore(model, rankerFeatures(model, candidate, &baseline)), -0.5, 1e-12);
  // An absolute model ignores the baseline: coal_hat = 1, h0 = 1, h1 = 0; score 2.5.
  const RankerModel absolute = rankerFromJson(document());
  EXPECT_NEAR(rankerScore(absolute, rankerFeatures(absolute, candidate, &baseline)), 2.5, 1e-12);
}

// The own 11 beside the relative ones: a network that knows a task's scale
// (a 4096-byte-per-thread GEMM and a 12-byte ReLU) and the change from its
// baseline at once.
TEST(RankerRelative, TheOwnElevenTravelBesideTheRelativeOnes) {
  FeatureVector candidate, baseline;
  candidate.gmem = 64, baseline.gmem = 16;
  candidate.occ = 0.5, baseline.occ = 1.0;
  candidate.markUnknown(*featureIndex("tpb"));
  baseline.markUnknown(*featureIndex("ops")); // unknown on the baseline's side only
  const FeatureVector relative = featuresRelativeToBaseline(candidate, baseline);
  const std::size_t ownGmem = *featureIndex("own_gmem"), ownOcc = *featureIndex("own_occ");
  EXPECT_EQ(ownGmem, kAllFeatureCount + 9);
  EXPECT_EQ(featureName(kRankerFeatureCount - 1), "own_ops");
  EXPECT_EQ(relative.valueAt(ownGmem), 64.0); // the candidate's own, untransformed
  EXPECT_EQ(relative.valueAt(ownOcc), 0.5);
  EXPECT_NEAR(relative.gmem, std::log(65.0 / 17.0), 1e-12);
  EXPECT_TRUE(relative.isUnknown(*featureIndex("own_tpb")));  // the candidate's doubt
  EXPECT_FALSE(relative.isUnknown(*featureIndex("own_ops"))); // the baseline's is not the candidate's
  EXPECT_TRUE(relative.isUnknown(*featureIndex("ops")));
  // Unit-interval scores stay identity-transformed in their own form too.
  EXPECT_TRUE(isUnitIntervalFeature(ownOcc));
  EXPECT_FALSE(isUnitIntervalFeature(ownGmem));
}

TEST(RankerRelative, OwnInputsNeedARelativeModel) {
  json::object doc = document();
  doc["features"].as_array().push_back("own_gmem");
  doc["mu"].as_array().push_back(0.0);
  doc["sigma"].as_array().push_back(1.0);
  for (auto &row : doc["layers"].as_array()[0].as_object()["weights"].as_array())
    row.as_array().push_back(0.0);
  EXPECT_NE(message(doc).find("relative_to_baseline"), std::string::npos) << message(doc);
  doc["relative_to_baseline"] = true;
  EXPECT_EQ(message(doc), "accepted");
  // A report's unknown list never names them: they are the ranker's inputs, not features of a kernel.
  FeatureVector features;
  json::value names = json::array{"own_tpb"};
  EXPECT_THROW(readUnknownFeatures(&names, features), std::invalid_argument);
}
