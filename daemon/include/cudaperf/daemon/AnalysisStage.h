// The static analysis of one candidate as a stage result: the plugin
// contract's report (contracts/ReportJson.h) and the feature vector the
// ranker scores, or why there is none (no analysis server, a parse error, a
// crash or a timeout of the sandboxed server).
#pragma once

#include "cudaperf/contracts/FeatureReport.h"
#include "cudaperf/contracts/FeatureVector.h"
#include "cudaperf/contracts/Ranker.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct AnalysisStage {
  std::string error;          // empty: there is a report
  boost::json::object report; // the report of the translation unit
  // The 11 features, unknown ones as the contract marks them, then the
  // extended ones: the ranker's input. nullopt without a report, or where
  // the report's vector cannot be read.
  std::optional<FeatureVector> features;
  // From the report's compiler_branches (docs/features.md "Compiler
  // branches"): the first test of a macro that no Clang pass reads as nvcc
  // does (__clang__, __NVCC__, __GNUC__, ...). Then the features of the
  // analysis's device pass, which every report of an analysis that lists
  // compiler branches has (devicePassExpected) unless that pass could not
  // read the file.
  std::optional<CompilerBranch> compilerDependent;
  bool devicePassExpected = false;
  std::optional<FeatureVector> devicePassFeatures;
  // The launches one of which stands for the file where the walk's only doubt
  // is which of them run (standingLaunchShapes): R_str scores such a file at
  // the lowest of them and the unknown (rankerScoreAcrossLaunches).
  std::vector<LaunchShape> entryLaunchShapes;

  bool ok() const { return error.empty(); }
  // From the analysis's answer: a report, or {"error": ...}.
  static AnalysisStage fromReport(boost::json::object answer);
  // The evaluation answer's `features`: {vector, unknown, report}, or {error}.
  boost::json::object answerJson() const;
};

} // namespace cudaperf
