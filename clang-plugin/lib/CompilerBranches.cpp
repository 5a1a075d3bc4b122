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

bool isSideMacro(llvm::StringRef name) { return name == "__CUDA_ARCH__"; }

bool isCompilerMacro(llvm::StringRef name) {
  // Names the language reserves for the implementation (__x, _X): what the
  // compiler, its predefines and its own headers define. Clang and nvcc
  // (whose device side is preprocessed by gcc with nvcc's -D flags) define
  // different sets with different values: __clang__, __NVCC__, __GNUC__ 4 or
  // 12, __CUDA_ARCH_LIST__, _CCCL_*, the wrappers' include guards, ...
  const bool reserved = name.starts_with("__") || (name.size() > 1 && name[0] == '_' && std::isupper(name[1]));
  if (reserved)
    return name != "__cplusplus" && name != "__CUDACC__" && name != "__LINE__" && !isSideMacro(name);
  // Include guards (CURAND_H_, ...): a header one compiler's wrappers include and the other's do not.
  if (name.ends_with("_H") || name.ends_with("_H_") || name.ends_with("_HPP") || name.ends_with("_INCLUDED"))
    return true;
  return name == "CUDA_DOUBLE_MATH_FUNCTIONS"; // the one unreserved name nvcc's device pass defines
}

namespace {

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

// Qualifiers and attributes the CUDA headers define as macros: used in code,
// their spelling differs by compiler but not what the analysis reads of a kernel.
bool isCudaQualifier(llvm::StringRef name) {
  static const std::set<std::string> qualifiers = {
      "__global__",         "__device__",        "__host__",         "__shared__",   "__constant__",
      "__managed__",        "__restrict__",      "__forceinline__",  "__noinline__", "__launch_bounds__",
      "__align__",          "__grid_constant__", "__cluster_dims__", "__maxnreg__",  "__builtin_align__",
      "__device_builtin__", "__inline_hint__"};
  return qualifiers.count(name.str()) != 0;
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
    const IdentifierInfo *identifier = name.getIdentifierInfo();
    if (!identifier || !inMainFile(at))
      return;
    const llvm::StringRef macro = identifier->getName();
    const MacroInfo *info = definition.getMacroInfo();
    if (preprocessor_.isParsingIfOrElifDirective()) {
      testedName(macro, at);
      // A macro of the file whose body is tested (#define ON_GPU __CUDA_ARCH__):
      // on the side where such a name is no macro, nothing else would show it.
      if (info && !info->isBuiltinMacro() && definedInMainFile(info))
        for (const Token &token : info->tokens()) {
          if (token.is(tok::hashhash))
            record("##", at); // a name pasted together: what it tests is not readable from the text
          else if (const IdentifierInfo *inner = token.getIdentifierInfo())
            testedName(inner->getName(), at);
        }
      return;
    }
    // In code: what the compiler itself defines (its predefines, __FILE__,
    // __COUNTER__, __has_builtin, ...) can differ in value between the two,
    // where the candidate spells it (or pastes it together). Through a header
    // (FLT_MAX is __FLT_MAX__) the headers of both sides are alike.
    const SourceLocation spelled = sources_.getSpellingLoc(name.getLocation());
    if (!inMainFile(spelled) && !sources_.isWrittenInScratchSpace(spelled))
      return;
    if (isSideMacro(macro)) {
      record(macro, at);
    } else if (info && macro != "__LINE__" && macro != "__cplusplus" && macro != "__CUDACC__" &&
               !isCudaQualifier(macro) &&
               (info->isBuiltinMacro() || sources_.isWrittenInBuiltinFile(info->getDefinitionLoc()) ||
                sources_.isWrittenInCommandLineFile(info->getDefinitionLoc()))) {
      record(macro, at);
    }
  }

  // #line renames the file or renumbers it: lines stop meaning what they say.
  void FileChanged(SourceLocation loc, FileChangeReason reason, SrcMgr::CharacteristicKind, FileID) override {
    if (reason == RenameFile && inMainFile(loc))
      record("#line", loc);
  }

  // A file that includes itself (#include __FILE__) is read twice, the second
  // time as a header the rules above would not watch.
  void InclusionDirective(SourceLocation hash, const Token &, StringRef, bool, CharSourceRange,
                          OptionalFileEntryRef file, StringRef, StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    const OptionalFileEntryRef main = sources_.getFileEntryRefForID(sources_.getMainFileID());
    if (file && main && file->getUniqueID() == main->getUniqueID())
      record("#include", sources_.getExpansionLoc(hash));
  }

private:
  bool inMainFile(SourceLocation loc) const {
    if (loc.isInvalid())
      return false;
    const FileID id = sources_.getFileID(sources_.getExpansionLoc(loc));
    if (id == sources_.getMainFileID())
      return true;
    // A second inclusion of the main file has a FileID of its own.
    const OptionalFileEntryRef file = sources_.getFileEntryRefForID(id);
    const OptionalFileEntryRef main = sources_.getFileEntryRefForID(sources_.getMainFileID());
    return file && main && file->getUniqueID() == main->getUniqueID();
  }

  bool definedInMainFile(const MacroInfo *info) const { return info && inMainFile(info->getDefinitionLoc()); }

  void tested(SourceLocation loc, const Token &name) {
    const SourceLocation at = sources_.getExpansionLoc(loc);
    if (const IdentifierInfo *identifier = name.getIdentifierInfo(); identifier && inMainFile(at))
      testedName(identifier->getName(), at);
  }

  // A name the file tests: __CUDA_ARCH__ is a side branch; a name of the
  // compiler's (isCompilerMacro) is a compiler branch, unless the file
  // defines that macro itself.
  void testedName(llvm::StringRef name, SourceLocation at) {
    if (isSideMacro(name)) {
      record(name, at);
      return;
    }
    if (!isCompilerMacro(name))
      return;
    const IdentifierInfo *identifier = preprocessor_.getIdentifierInfo(name);
    const MacroInfo *info = identifier ? preprocessor_.getMacroInfo(identifier) : nullptr;
    if (info && !info->isBuiltinMacro() && definedInMainFile(info))
      return;
    record(name, at);
  }

  void condition_(SourceLocation loc, SourceRange condition) {
    const SourceLocation at = sources_.getExpansionLoc(loc);
    if (!inMainFile(at))
      return;
    const llvm::StringRef text =
        Lexer::getSourceText(CharSourceRange::getTokenRange(condition), sources_, preprocessor_.getLangOpts());
    for (llvm::StringRef name : identifiersIn(text))
      testedName(name, at);
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
};

} // namespace

void watchCompilerBranches(Preprocessor &preprocessor, std::shared_ptr<std::vector<CompilerBranchSite>> found) {
  preprocessor.addPPCallbacks(std::make_unique<CompilerBranchWatch>(preprocessor, std::move(found)));
}

} // namespace cudaperf::analysis
