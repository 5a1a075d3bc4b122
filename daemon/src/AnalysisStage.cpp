#include "cudaperf/daemon/AnalysisStage.h"

#include "cudaperf/contracts/ReportJson.h"

#include <boost/json.hpp>

namespace cudaperf {

namespace json = boost::json;

AnalysisStage AnalysisStage::fromReport(json::object answer) {
  AnalysisStage stage;
  if (const json::value *error = answer.if_contains("error"); error || !answer.contains("features")) {
    stage.error = error && error->is_string() ? std::string(error->get_string()) : "the analysis gave no features";
    return stage;
  }
  stage.report = std::move(answer);
  try {
    FeatureVector vector = featuresFromJson(stage.report.at("features"));
    readUnknownFeatures(stage.report.if_contains("features_unknown"), vector);
    readExtendedFeatures(stage.report.if_contains("extended"), vector);
    stage.features = vector;
  } catch (const std::exception &) {
    // A report whose vector does not read gets no structural reward; its
    // text still goes out in the answer.
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
