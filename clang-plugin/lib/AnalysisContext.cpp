#include "AnalysisContext.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace cudaperf::analysis {

std::string formatLocation(const clang::SourceManager &sourceManager, clang::SourceLocation loc) {
  if (loc.isInvalid())
    return "<unknown>";
  // Macros (e.g. __global__ from host_defines.h) point into headers: report
  // where the user wrote the code.
  const clang::SourceLocation expansion = sourceManager.getExpansionLoc(loc);
  const clang::PresumedLoc presumed = sourceManager.getPresumedLoc(expansion);
  if (presumed.isInvalid())
    return "<unknown>";
  return std::string(presumed.getFilename()) + ":" + std::to_string(presumed.getLine()) + ":" +
         std::to_string(presumed.getColumn());
}

std::string sourceText(const clang::ASTContext &ast, clang::SourceRange range, std::size_t maxLength) {
  if (range.isInvalid())
    return "";
  const auto &sourceManager = ast.getSourceManager();
  const clang::CharSourceRange expansion = sourceManager.getExpansionRange(range);
  bool invalid = false;
  const llvm::StringRef raw = clang::Lexer::getSourceText(expansion, sourceManager, ast.getLangOpts(), &invalid);
  if (invalid)
    return "";
  std::string text;
  bool space = false;
  for (char c : raw) {
    if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
      space = !text.empty();
      continue;
    }
    if (space)
      text += ' ';
    space = false;
    text += c;
    if (text.size() >= maxLength) {
      text += "...";
      break;
    }
  }
  return text;
}

std::string AnalysisContext::location(clang::SourceLocation loc) const {
  return formatLocation(ast_.getSourceManager(), loc);
}

void AnalysisContext::warn(clang::SourceLocation loc, const char *rule, const std::string &message,
                           std::vector<Diagnostic> &into) {
  warn(loc, rule, message, into, clang::SourceLocation(), "");
}

void AnalysisContext::warn(clang::SourceLocation loc, const char *rule, const std::string &message,
                           std::vector<Diagnostic> &into, clang::SourceLocation noteLoc, const std::string &note) {
  const bool noted = noteLoc.isValid() && !note.empty();
  into.push_back({location(loc), Severity::Warning, rule, message, noted ? location(noteLoc) : "", noted ? note : ""});
  if (!options_.emitWarnings || loc.isInvalid())
    return;
  auto &engine = ast_.getDiagnostics();
  const unsigned id = engine.getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0 [cudaperf-%1]");
  engine.Report(ast_.getSourceManager().getExpansionLoc(loc), id) << message << rule;
  if (noted) {
    const unsigned noteId = engine.getCustomDiagID(clang::DiagnosticsEngine::Note, "%0");
    engine.Report(ast_.getSourceManager().getExpansionLoc(noteLoc), noteId) << note;
  }
}

} // namespace cudaperf::analysis
