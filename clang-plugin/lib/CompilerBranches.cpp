#include "CompilerBranches.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroArgs.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/PPCallbacks.h>

#include <cctype>
#include <set>
#include <utility>

namespace cudaperf::analysis {

using namespace clang;

bool isSideMacro(llvm::StringRef name) { return name.starts_with("__CUDA_ARCH"); }

bool isCompilerMacro(llvm::StringRef name) {
  if (name == "__CUDACC__") // both compilers define it, on both sides
    return false;
  return name == "__clang__" || name.starts_with("__clang_") || name == "__llvm__" || name == "__CUDA__" ||
         name == "__NVCC__" || name.starts_with("__CUDACC_") || name.starts_with("__NVCOMPILER") ||
         name.starts_with("__HIP") || name == "__has_builtin" || name == "__has_feature" || name == "__has_extension" ||
         name == "__has_attribute" || name == "__has_cpp_attribute" || name == "__has_declspec_attribute" ||
         name == "__is_identifier" || name == "__is_target_arch" || name == "__is_target_os";
}

namespace {

bool isWatched(llvm::StringRef name) { return isSideMacro(name) || isCompilerMacro(name); }

// The identifiers of a stretch of source text (a condition as written).
std::vector<llvm::StringRef> identifiersIn(llvm::StringRef text) {
  std::vector<llvm::StringRef> names;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t end = i + 1;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
      names.push_back(text.slice(i, end));
      i = end;
    } else {
      ++i;
    }
  }
  return names;
}

class CompilerBranchWatch : public PPCallbacks {
public:
  CompilerBranchWatch(Preprocessor &preprocessor, std::shared_ptr<std::vector<CompilerBranchSite>> found)
      : preprocessor_(preprocessor), sources_(preprocessor.getSourceManager()), found_(std::move(found)) {}

  void Ifdef(SourceLocation loc, const Token &name, const MacroDefinition &) override { tested(loc, name); }
  void Ifndef(SourceLocation loc, const Token &name, const MacroDefinition &) override { tested(loc, name); }
  void Elifdef(SourceLocation loc, const Token &name, const MacroDefinition &) override { tested(loc, name); }
  void Elifndef(SourceLocation loc, const Token &name, const MacroDefinition &) override { tested(loc, name); }
  void Defined(const Token &name, const MacroDefinition &, SourceRange range) override {
    tested(range.getBegin(), name);
  }

  // A condition as written: names that are no macro on this side (__NVCC__
  // and, on the host, __CUDA_ARCH__) raise no other callback.
  void If(SourceLocation loc, SourceRange condition, ConditionValueKind) override { condition_(loc, condition); }
  void Elif(SourceLocation loc, SourceRange condition, ConditionValueKind, SourceLocation) override {
    condition_(loc, condition);
  }

  void MacroExpands(const Token &name, const MacroDefinition &definition, SourceRange range,
                    const MacroArgs *) override {
    const SourceLocation at = sources_.getExpansionLoc(range.getBegin());
    if (!sources_.isWrittenInMainFile(at))
      return;
    const IdentifierInfo *identifier = name.getIdentifierInfo();
    if (identifier && isWatched(identifier->getName())) {
      record(identifier->getName(), at);
      return;
    }
    // A macro of the file whose body names one (#define ON_GPU __CUDA_ARCH__):
    // on the side where that name is no macro, nothing else would show it.
    const MacroInfo *info = definition.getMacroInfo();
    if (!info)
      return;
    bool pastes = false;
    for (const Token &token : info->tokens()) {
      if (token.is(tok::hashhash))
        pastes = true;
      if (const IdentifierInfo *inner = token.getIdentifierInfo(); inner && isWatched(inner->getName()))
        record(inner->getName(), at);
    }
    if (pastes)
      pastedExpansions_.push_back(at);
  }

private:
  void tested(SourceLocation loc, const Token &name) {
    const SourceLocation at = sources_.getExpansionLoc(loc);
    if (const IdentifierInfo *identifier = name.getIdentifierInfo();
        identifier && sources_.isWrittenInMainFile(at) && isWatched(identifier->getName()))
      record(identifier->getName(), at);
  }

  void condition_(SourceLocation loc, SourceRange condition) {
    const SourceLocation at = sources_.getExpansionLoc(loc);
    if (!sources_.isWrittenInMainFile(at)) {
      pastedExpansions_.clear();
      return;
    }
    const llvm::StringRef text =
        Lexer::getSourceText(CharSourceRange::getTokenRange(condition), sources_, preprocessor_.getLangOpts());
    for (llvm::StringRef name : identifiersIn(text))
      if (isWatched(name))
        record(name, at);
    // A name pasted together inside a condition (CAT(__NV, CC__)) can be any
    // macro at all: what it tests is not readable from the text.
    const unsigned line = sources_.getSpellingLineNumber(at);
    for (SourceLocation pasted : pastedExpansions_)
      if (sources_.getSpellingLineNumber(pasted) == line)
        record("##", at);
    pastedExpansions_.clear();
  }

  void record(llvm::StringRef name, SourceLocation at) {
    const unsigned line = sources_.getSpellingLineNumber(at);
    if (!seen_.insert({name.str(), line}).second)
      return;
    found_->push_back({{name.str(), line, isSideMacro(name)}, at});
  }

  Preprocessor &preprocessor_;
  const SourceManager &sources_;
  std::shared_ptr<std::vector<CompilerBranchSite>> found_;
  std::set<std::pair<std::string, unsigned>> seen_;
  std::vector<SourceLocation> pastedExpansions_; // since the last condition
};

} // namespace

void watchCompilerBranches(Preprocessor &preprocessor, std::shared_ptr<std::vector<CompilerBranchSite>> found) {
  preprocessor.addPPCallbacks(std::make_unique<CompilerBranchWatch>(preprocessor, std::move(found)));
}

} // namespace cudaperf::analysis
