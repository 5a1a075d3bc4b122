#include "HostAnalysis.h"

#include "AnalysisContext.h"
#include "HostValues.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

namespace cudaperf::analysis {

using namespace clang;

namespace {

constexpr int kMaxStatementDepth = 2000;

bool isTransfer(llvm::StringRef name) {
  return name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy") || name == "cudaMemPrefetchAsync";
}

class HostWalker {
public:
  HostWalker(ASTContext &ast, const FunctionDecl *function, TranslationUnitFacts &facts)
      : ast_(ast), function_(function), facts_(facts), name_(function->getNameAsString()), values_(ast) {}

  void walk(const Stmt *stmt, unsigned loopDepth, int depth = 0) {
    if (!stmt || isa<LambdaExpr>(stmt) || depth > kMaxStatementDepth) // the stack: a 20,000-term sum nests as deep
      return;
    if (const auto *launch = dyn_cast<CUDAKernelCallExpr>(stmt)) {
      recordLaunch(launch, loopDepth);
    } else if (const auto *call = dyn_cast<CallExpr>(stmt)) {
      recordCall(call, loopDepth);
    }
    const bool isLoop = isa<ForStmt>(stmt) || isa<WhileStmt>(stmt) || isa<DoStmt>(stmt) || isa<CXXForRangeStmt>(stmt);
    for (const Stmt *child : stmt->children())
      walk(child, loopDepth + (isLoop ? 1 : 0), depth + 1);
  }

private:
  ASTContext &ast_;
  const FunctionDecl *function_;
  TranslationUnitFacts &facts_;
  std::string name_;
  unsigned order_ = 0;
  HostValues values_;

  void recordLaunch(const CUDAKernelCallExpr *launch, unsigned loopDepth) {
    const FunctionDecl *kernel = launchedKernel(launch);
    LaunchFact fact;
    fact.kernel = kernel ? kernel->getCanonicalDecl() : nullptr;
    if (kernel) {
      llvm::raw_string_ostream out(fact.kernelName);
      kernel->getNameForDiagnostic(out, ast_.getPrintingPolicy(), false);
    } else {
      fact.kernelName = sourceText(ast_, launch->getCallee()->getSourceRange());
    }
    fact.loc = launch->getBeginLoc();
    fact.hostFunction = name_;
    fact.loopDepth = loopDepth;
    fact.order = order_++;
    if (const CallExpr *config = launch->getConfig()) {
      if (config->getNumArgs() > 0)
        fact.grid = values_.dim3(config->getArg(0), function_);
      if (config->getNumArgs() > 1)
        fact.block = values_.dim3(config->getArg(1), function_);
      if (config->getNumArgs() > 2 && !isa<CXXDefaultArgExpr>(config->getArg(2)))
        fact.dynamicSharedBytes = values_.integer(config->getArg(2), function_);
      else
        fact.dynamicSharedBytes = 0;
      if (config->getNumArgs() > 3 && !isa<CXXDefaultArgExpr>(config->getArg(3)))
        fact.usesStream = true;
    }
    facts_.launches.push_back(std::move(fact));
  }

  void recordCall(const CallExpr *call, unsigned loopDepth) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || !callee->getIdentifier())
      return;
    const auto name = callee->getName();
    if (isTransfer(name) || name == "cudaMallocManaged") {
      TransferFact fact;
      fact.loc = call->getBeginLoc();
      fact.function = name.str();
      fact.hostFunction = name_;
      fact.loopDepth = loopDepth;
      fact.order = order_++;
      fact.managed = name == "cudaMallocManaged";
      facts_.transfers.push_back(std::move(fact));
    } else if (name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" || name == "cudaThreadSynchronize") {
      facts_.deviceSyncs.push_back({call->getBeginLoc(), name_, loopDepth, order_++});
    }
  }
};

} // namespace

void collectHostFacts(ASTContext &ast, const FunctionDecl *hostFunction, TranslationUnitFacts &facts) {
  if (!hostFunction->hasBody())
    return;
  HostWalker walker(ast, hostFunction, facts);
  walker.walk(hostFunction->getBody(), 0);
}

} // namespace cudaperf::analysis
