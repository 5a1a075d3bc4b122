#include "FeatureConsumer.h"

#include "AnalysisContext.h"
#include "CompilerBranches.h"
#include "EntryLaunches.h"
#include "HostAnalysis.h"
#include "IndexAnalysis.h"
#include "rules/FeatureRule.h"

#include <clang/AST/Attr.h>
#include <clang/AST/Mangle.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/HeaderSearch.h>
#include <clang/Lex/PPCallbacks.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Format.h>

#include <chrono>
#include <clang/Lex/Preprocessor.h>

namespace cudaperf::analysis {

using namespace clang;

namespace {

class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  explicit FunctionCollector(const SourceManager &sources) : sources_(sources) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBodies() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *function) {
    if (!function->doesThisDeclarationHaveABody() || function->isInvalidDecl())
      return true;
    if (sources_.isInSystemHeader(sources_.getExpansionLoc(function->getLocation())))
      return true;
    if (function->hasAttr<CUDAGlobalAttr>()) {
      if (function->isDependentContext() && hasInstantiation(function))
        return true; // the instantiations carry concrete sizes; analyse those
      kernels.push_back(function);
      return true;
    }
    const bool deviceOnly = function->hasAttr<CUDADeviceAttr>() && !function->hasAttr<CUDAHostAttr>();
    if (!deviceOnly && !function->isDependentContext())
      hosts.push_back(function);
    return true;
  }

  std::vector<const FunctionDecl *> kernels;
  std::vector<const FunctionDecl *> hosts;

private:
  static bool hasInstantiation(const FunctionDecl *pattern) {
    const FunctionTemplateDecl *templateDecl = pattern->getDescribedFunctionTemplate();
    if (!templateDecl)
      return false;
    for (const FunctionDecl *specialization : templateDecl->specializations())
      if (specialization->doesThisDeclarationHaveABody())
        return true;
    return false;
  }
  const SourceManager &sources_;
};

class MissingIncludeSkipper : public PPCallbacks {
public:
  MissingIncludeSkipper(bool skipAll, std::shared_ptr<std::vector<std::string>> skipped)
      : skipAll_(skipAll), skipped_(std::move(skipped)) {}

  bool FileNotFound(StringRef fileName) override {
    // Clang 19's CUDA wrapper includes a header CUDA 13 no longer ships; it
    // only declared texture fetches, which kernels here do not need.
    if (fileName.ends_with("texture_fetch_functions.h"))
      return true;
    if (!skipAll_)
      return false;
    skipped_->push_back(fileName.str());
    return true;
  }

private:
  bool skipAll_;
  std::shared_ptr<std::vector<std::string>> skipped_;
};

class FeatureConsumer : public ASTConsumer {
public:
  FeatureConsumer(AnalysisOptions options, ReportSink sink, std::shared_ptr<std::vector<std::string>> skipped,
                  std::shared_ptr<std::vector<CompilerBranchSite>> branches)
      : options_(std::move(options)), sink_(std::move(sink)), skipped_(std::move(skipped)),
        branches_(std::move(branches)) {}

  void HandleTranslationUnit(ASTContext &ast) override {
    const auto start = std::chrono::steady_clock::now();
    TranslationUnitReport report = analyzeTranslationUnit(ast, options_, *skipped_, *branches_);
    if (options_.printTiming) {
      const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
      llvm::errs() << "cudaperf: analysis of " << report.file << " took " << llvm::format("%.3f", elapsed.count())
                   << " ms\n";
    }
    sink_(std::move(report));
  }

private:
  AnalysisOptions options_;
  ReportSink sink_;
  std::shared_ptr<std::vector<std::string>> skipped_;
  std::shared_ptr<std::vector<CompilerBranchSite>> branches_;
};

std::string mainFileName(const SourceManager &sources) {
  if (auto entry = sources.getFileEntryRefForID(sources.getMainFileID()))
    return entry->getName().str();
  return "<input>";
}

} // namespace

TranslationUnitReport analyzeTranslationUnit(ASTContext &ast, const AnalysisOptions &options,
                                             std::vector<std::string> skippedIncludes,
                                             const std::vector<CompilerBranchSite> &compilerBranches) {
  TranslationUnitFacts facts;
  facts.skippedIncludes = std::move(skippedIncludes);
  FunctionCollector collector(ast.getSourceManager());
  // The declarations of this file only: with precompiled CUDA headers,
  // walking every declaration would deserialise the whole header set.
  for (Decl *declaration : ast.getTranslationUnitDecl()->noload_decls())
    collector.TraverseDecl(declaration);

  // The Itanium name nvcc gives the same kernel: what the daemon checks the
  // kernels it analysed against (ptxas's entries of the build).
  std::unique_ptr<MangleContext> mangler(ast.createMangleContext());
  for (const FunctionDecl *kernel : collector.kernels) {
    KernelFacts kernelFacts;
    llvm::raw_string_ostream name(kernelFacts.name);
    kernel->getNameForDiagnostic(name, ast.getPrintingPolicy(), false);
    name.flush();
    kernelFacts.templatePattern = kernel->isDependentContext();
    if (!kernelFacts.templatePattern) {
      llvm::raw_string_ostream mangled(kernelFacts.mangledName);
      if (mangler->shouldMangleDeclName(kernel))
        mangler->mangleName(GlobalDecl(kernel, KernelReferenceKind::Kernel), mangled);
      else
        mangled << kernel->getName(); // extern "C"
      mangled.flush();
    }
    collectKernelFacts(ast, facts.symbols, kernel, kernelFacts);
    facts.kernels.push_back(std::move(kernelFacts));
  }
  for (const FunctionDecl *host : collector.hosts)
    collectHostFacts(ast, host, facts);
  collectEntryLaunches(ast, collector.hosts, options, facts);

  TranslationUnitReport report;
  report.file = mainFileName(ast.getSourceManager());
  report.arch = archLimits(options.arch.c_str()).name;
  if (auto *client = ast.getDiagnostics().getClient())
    report.errors = client->getNumErrors();
  if (!isKnownArch(options.arch.c_str()))
    report.diagnostics.push_back({report.file, Severity::Note, "occupancy",
                                  "unknown arch '" + options.arch + "': occupancy computed for sm_90"});
  AnalysisContext context(ast, options, facts);
  for (const auto &rule : makeFeatureRules())
    rule->apply(context, report);
  for (const auto &[branch, at] : compilerBranches) {
    report.compilerBranches.push_back(branch);
    const std::string name = branch.macro == "##" ? "a name pasted with ##" : "'" + branch.macro + "'";
    context.warn(at, "compiler-branches",
                 branch.side ? name + " decides what this file holds: nvcc builds the code that runs with it as "
                                      "the device side defines it, and this report reads the host side"
                             : name + " is not the same under Clang and nvcc: this report reads Clang's view of "
                                      "the file, and nvcc may build other code",
                 report.diagnostics);
  }
  return report;
}

// CUDA 13 moved libcu++ (cuda::std, used by cooperative_groups) under
// include/cccl, which Clang 19's driver does not put on the search path.
void addCcclSearchPath(CompilerInstance &compiler) {
  auto &headerSearch = compiler.getPreprocessor().getHeaderSearchInfo();
  for (const auto &entry : compiler.getHeaderSearchOpts().UserEntries) {
    const std::string cccl = entry.Path + "/cccl";
    if (!llvm::sys::fs::exists(entry.Path + "/cuda_runtime.h") || !llvm::sys::fs::exists(cccl + "/cuda/std"))
      continue;
    if (auto directory = compiler.getFileManager().getOptionalDirectoryRef(cccl))
      headerSearch.AddSearchPath(DirectoryLookup(*directory, SrcMgr::C_System, false), true);
    return;
  }
}

void installIncludeRecovery(CompilerInstance &compiler, const AnalysisOptions &options,
                            std::shared_ptr<std::vector<std::string>> skipped) {
  compiler.getDiagnostics().setErrorLimit(0);
  if (!compiler.hasPreprocessor())
    return;
  compiler.getPreprocessor().addPPCallbacks(
      std::make_unique<MissingIncludeSkipper>(options.skipMissingIncludes, std::move(skipped)));
  if (compiler.getLangOpts().CUDA)
    addCcclSearchPath(compiler);
}

std::unique_ptr<ASTConsumer> createFeatureConsumer(CompilerInstance &compiler, const AnalysisOptions &options,
                                                   ReportSink sink) {
  auto skipped = std::make_shared<std::vector<std::string>>();
  installIncludeRecovery(compiler, options, skipped);
  auto branches = std::make_shared<std::vector<CompilerBranchSite>>();
  if (compiler.hasPreprocessor())
    watchCompilerBranches(compiler.getPreprocessor(), branches);
  return std::make_unique<FeatureConsumer>(options, std::move(sink), skipped, branches);
}

} // namespace cudaperf::analysis
