// The AST consumer behind both front ends (the plugin and cudaperf-features):
// it finds kernels and host code, collects facts, runs the feature rules and
// hands the finished report to a sink. It does not know how it was invoked.
#pragma once

#include "CompilerBranches.h"
#include "cudaperf/analysis/Analyzer.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>

#include <functional>
#include <memory>

namespace cudaperf::analysis {

using ReportSink = std::function<void(TranslationUnitReport &&)>;

// Also installs the preprocessor hook that skips missing includes (the
// texture_fetch_functions.h that CUDA 13 dropped, and with
// options.skipMissingIncludes any other) and lifts the error limit, so that
// errors in host code never hide the kernels that parsed.
std::unique_ptr<clang::ASTConsumer> createFeatureConsumer(clang::CompilerInstance &compiler,
                                                          const AnalysisOptions &options, ReportSink sink);

// Only the preprocessor hook and the error limit, for compiler passes that do
// not report (the device passes of a CUDA compile) but must parse the same way.
void installIncludeRecovery(clang::CompilerInstance &compiler, const AnalysisOptions &options,
                            std::shared_ptr<std::vector<std::string>> skipped);

// Runs the whole analysis on a parsed translation unit.
// `compilerBranches`: what watchCompilerBranches found while this unit was
// preprocessed (CompilerBranches.h), reported and warned about as they are.
TranslationUnitReport analyzeTranslationUnit(clang::ASTContext &ast, const AnalysisOptions &options,
                                             std::vector<std::string> skippedIncludes,
                                             const std::vector<CompilerBranchSite> &compilerBranches = {});

} // namespace cudaperf::analysis
