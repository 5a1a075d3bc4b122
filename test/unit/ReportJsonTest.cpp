#include "cudaperf/contracts/ReportJson.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace cudaperf;
namespace json = boost::json;

TEST(ReportJson, FeaturesHaveExactlyTheElevenKeys) {
  FeatureVector features;
  features.coal = 0.5;
  auto object = featuresToJson(features);
  EXPECT_EQ(object.size(), 11u);
  EXPECT_DOUBLE_EQ(object.at("coal").as_double(), 0.5);
  EXPECT_DOUBLE_EQ(featuresFromJson(object).coal, 0.5);
}

TEST(ReportJson, MissingOrBadFeatureKeysAreNamed) {
  json::object object = featuresToJson(FeatureVector{});
  object.erase("occ");
  try {
    featuresFromJson(object);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("'occ'"), std::string::npos);
  }
  object = featuresToJson(FeatureVector{});
  object["ai"] = "fast";
  EXPECT_THROW(featuresFromJson(object), std::invalid_argument);
  EXPECT_THROW(featuresFromJson(json::value(3)), std::invalid_argument);
}

TEST(ReportJson, NonFiniteValuesNeverReachTheDocument) {
  TranslationUnitReport report;
  report.features.ai = std::numeric_limits<double>::infinity();
  report.features.coal = std::nan("");
  const std::string text = reportsToJsonText({report}, false);
  auto parsed = json::parse(text);
  EXPECT_DOUBLE_EQ(parsed.at("features").at("ai").to_number<double>(), 0.0);
  EXPECT_EQ(parsed.at("schema").as_string(), "cudaperf.features/1");
}

TEST(ReportJson, ContractShape) {
  TranslationUnitReport report;
  report.file = "k.cu";
  KernelReport kernel;
  kernel.name = "copy";
  kernel.location = "k.cu:2:17";
  MemoryAccess access;
  access.strideClass = StrideClass::Unknown;
  kernel.accesses.push_back(access);
  Branch branch;
  branch.branchClass = BranchClass::Guard;
  kernel.branches.push_back(branch);
  report.kernels.push_back(kernel);
  LaunchSite launch;
  launch.kernel = "copy";
  launch.block.x = 256;
  launch.block.y = 1;
  launch.block.z = 1;
  report.launches.push_back(launch);

  auto parsed = json::parse(reportsToJsonText({report}, false));
  const auto &k = parsed.at("kernels").at(0);
  for (const char *key :
       {"name", "location", "features", "accesses", "branches", "shared", "launch_bounds", "extras", "diagnostics"})
    EXPECT_TRUE(k.as_object().contains(key)) << key;
  EXPECT_TRUE(k.at("accesses").at(0).at("stride").is_null());
  EXPECT_EQ(k.at("accesses").at(0).at("space").as_string(), "global");
  EXPECT_EQ(k.at("branches").at(0).at("class").as_string(), "guard");
  EXPECT_EQ(parsed.at("launches").at(0).at("threads_per_block").as_int64(), 256);
  EXPECT_TRUE(parsed.at("launches").at(0).at("grid").at("x").is_null());

  auto array = json::parse(reportsToJsonText({report, report}, true));
  EXPECT_EQ(array.as_array().size(), 2u);
}
