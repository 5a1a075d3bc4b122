// The launches a task's entry makes at the benchmark size: from the entry
// (AnalysisOptions::entry) with its integer parameters bound to the task's
// benchmark values, through the launchers of this file it calls (their
// parameters bound to the values of the call's arguments), every
// <<<grid, block>>> whose dimensions then evaluate. How many blocks a launch
// makes decides what its block size costs: millions of small blocks pay for
// scheduling, a few hundred large ones leave SMs idle (docs/features.md).
#pragma once

#include "Facts.h"
#include "cudaperf/analysis/Analyzer.h"

#include <clang/AST/ASTContext.h>

#include <vector>

namespace cudaperf::analysis {

void collectEntryLaunches(clang::ASTContext &ast, const std::vector<const clang::FunctionDecl *> &hostFunctions,
                          const AnalysisOptions &options, TranslationUnitFacts &facts);

} // namespace cudaperf::analysis
