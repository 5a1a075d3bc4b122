// What the feature rules share while they turn collected facts into a report:
// the AST, the options, and a sink for diagnostics that can also surface them
// as Clang warnings. Internal to the analysis library.
#pragma once

#include "Facts.h"
#include "cudaperf/analysis/Analyzer.h"

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceLocation.h>

namespace cudaperf::analysis {

class AnalysisContext {
public:
  AnalysisContext(clang::ASTContext &ast, const AnalysisOptions &options, TranslationUnitFacts &facts)
      : ast_(ast), options_(options), facts_(facts) {}

  clang::ASTContext &ast() { return ast_; }
  const AnalysisOptions &options() const { return options_; }
  TranslationUnitFacts &facts() { return facts_; }

  std::string location(clang::SourceLocation loc) const;
  // Records the diagnostic in the report and, with warnings on, as a Clang warning.
  void warn(clang::SourceLocation loc, const char *rule, const std::string &message, std::vector<Diagnostic> &into);
  // The same, with a note at the cause (skipped when `noteLoc` is invalid).
  void warn(clang::SourceLocation loc, const char *rule, const std::string &message, std::vector<Diagnostic> &into,
            clang::SourceLocation noteLoc, const std::string &note);

private:
  clang::ASTContext &ast_;
  const AnalysisOptions &options_;
  TranslationUnitFacts &facts_;
};

std::string formatLocation(const clang::SourceManager &sourceManager, clang::SourceLocation loc);
std::string sourceText(const clang::ASTContext &ast, clang::SourceRange range, std::size_t maxLength = 120);

} // namespace cudaperf::analysis
