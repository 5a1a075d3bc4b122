#include "cudaperf/daemon/AnalysisStage.h"

#include "cudaperf/contracts/ReportJson.h"

#include <boost/json.hpp>

namespace cudaperf {

namespace json = boost::json;

namespace {
// The 11, the unknown ones marked, then the extended ones: a report's, or its device pass's.
FeatureVector vectorOf(const json::object &report) {
  FeatureVector vector = featuresFromJson(report.at("features"));
  readUnknownFeatures(report.if_contains("features_unknown"), vector);
  readExtendedFeatures(report.if_contains("extended"), vector);
  return vector;
}
} // namespace

AnalysisStage AnalysisStage::fromReport(json::object answer) {
  AnalysisStage stage;
  if (const json::value *error = answer.if_contains("error"); error || !answer.contains("features")) {
    stage.error = error && error->is_string() ? std::string(error->get_string()) : "the analysis gave no features";
    return stage;
  }
  stage.report = std::move(answer);
  try {
    stage.features = vectorOf(stage.report);
    stage.entryLaunchShapes = standingLaunchShapes(stage.report);
    if (const json::value *branches = stage.report.if_contains("compiler_branches")) {
      stage.devicePassExpected = true; // an analysis that lists them reads the device side too
      for (const json::value &entry : branches->as_array()) {
        const json::object &branch = entry.as_object();
        const bool side = branch.at("side").as_bool();
        if (!side && !stage.compilerDependent)
          stage.compilerDependent = CompilerBranch{std::string(branch.at("macro").as_string()),
                                                   static_cast<unsigned>(branch.at("line").to_number<double>()), false};
      }
    }
    if (const json::value *device = stage.report.if_contains("device_pass"))
      stage.devicePassFeatures = vectorOf(device->as_object());
  } catch (const std::exception &) {
    // A report whose vector does not read gets no structural reward; its
    // text still goes out in the answer.
    stage.features.reset();
  }
  return stage;
}

json::object AnalysisStage::answerJson() const {
  if (!ok())
    return {{"error", error}};
  const json::value *unknown = report.if_contains("features_unknown");
  return {{"vector", report.at("features")}, {"unknown", unknown ? *unknown : json::array()}, {"report", report}};
}

} // namespace cudaperf
