#include "HostAnalysis.h"

#include "AnalysisContext.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <set>

namespace cudaperf::analysis {

using namespace clang;

namespace {

bool isTransfer(llvm::StringRef name) {
  return name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy") || name == "cudaMemPrefetchAsync";
}

class HostWalker {
public:
  HostWalker(ASTContext &ast, const FunctionDecl *function, TranslationUnitFacts &facts)
      : ast_(ast), function_(function), facts_(facts), name_(function->getNameAsString()) {
    collectAssignedVars(function->getBody());
  }

  void walk(const Stmt *stmt, unsigned loopDepth) {
    if (!stmt || isa<LambdaExpr>(stmt))
      return;
    if (const auto *launch = dyn_cast<CUDAKernelCallExpr>(stmt)) {
      recordLaunch(launch, loopDepth);
    } else if (const auto *call = dyn_cast<CallExpr>(stmt)) {
      recordCall(call, loopDepth);
    }
    const bool isLoop = isa<ForStmt>(stmt) || isa<WhileStmt>(stmt) || isa<DoStmt>(stmt) || isa<CXXForRangeStmt>(stmt);
    for (const Stmt *child : stmt->children())
      walk(child, loopDepth + (isLoop ? 1 : 0));
  }

private:
  ASTContext &ast_;
  const FunctionDecl *function_;
  TranslationUnitFacts &facts_;
  std::string name_;
  unsigned order_ = 0;
  std::set<const VarDecl *> assigned_;

  void collectAssignedVars(const Stmt *stmt) {
    if (!stmt)
      return;
    auto note = [&](const Expr *expr) {
      if (const auto *ref = dyn_cast<DeclRefExpr>(expr->IgnoreParenImpCasts()))
        if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
          assigned_.insert(var);
    };
    if (const auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp())
      note(op->getLHS());
    if (const auto *op = dyn_cast<UnaryOperator>(stmt);
        op && (op->isIncrementDecrementOp() || op->getOpcode() == UO_AddrOf))
      note(op->getSubExpr());
    if (const auto *member = dyn_cast<MemberExpr>(stmt); member && !member->isArrow()) {
      // `block.x = 128` changes a dim3 local after its initialisation.
      note(member->getBase());
    }
    for (const Stmt *child : stmt->children())
      collectAssignedVars(child);
  }

  // Integer value of a launch argument: constants, constexpr, macros, and
  // locals initialised once and never written again.
  std::optional<std::int64_t> evaluateInt(const Expr *expr, int depth = 0) {
    if (!expr || depth > 8 || expr->getType().isNull() || expr->isValueDependent() || expr->isTypeDependent() ||
        expr->containsErrors())
      return std::nullopt;
    if (expr->getType()->isIntegralOrEnumerationType()) {
      Expr::EvalResult result;
      if (expr->EvaluateAsInt(result, ast_, Expr::SE_NoSideEffects) && result.Val.getInt().isRepresentableByInt64())
        return result.Val.getInt().getExtValue();
    }
    const Expr *stripped = expr->IgnoreParenImpCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(stripped))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        if (var->hasInit() && !assigned_.count(var) && !isa<ParmVarDecl>(var))
          return evaluateInt(var->getInit(), depth + 1);
    if (const auto *op = dyn_cast<BinaryOperator>(stripped)) {
      auto left = evaluateInt(op->getLHS(), depth + 1);
      auto right = evaluateInt(op->getRHS(), depth + 1);
      if (!left || !right)
        return std::nullopt;
      switch (op->getOpcode()) {
      case BO_Add:
        return *left + *right;
      case BO_Sub:
        return *left - *right;
      case BO_Mul:
        return *left * *right;
      case BO_Div:
        return *right ? std::optional<std::int64_t>(*left / *right) : std::nullopt;
      case BO_Shl:
        return *right >= 0 && *right < 62 ? std::optional<std::int64_t>(*left << *right) : std::nullopt;
      default:
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  Dim3 evaluateDim3(const Expr *expr, int depth = 0) {
    Dim3 dim;
    if (!expr)
      return dim;
    dim.expression = sourceText(ast_, expr->getSourceRange());
    if (depth > 8)
      return dim;
    const Expr *stripped = expr->IgnoreImplicit()->IgnoreParens();
    if (const auto *temp = dyn_cast<MaterializeTemporaryExpr>(stripped))
      stripped = temp->getSubExpr()->IgnoreImplicit();
    if (const auto *construct = dyn_cast<CXXConstructExpr>(stripped)) {
      const auto *constructor = construct->getConstructor();
      if (constructor && constructor->isCopyOrMoveConstructor() && construct->getNumArgs() == 1) {
        Dim3 inner = evaluateDim3(construct->getArg(0), depth + 1);
        inner.expression = dim.expression;
        return inner;
      }
      std::optional<std::int64_t> values[3] = {1, 1, 1};
      for (unsigned i = 0; i < construct->getNumArgs() && i < 3; ++i) {
        const Expr *arg = construct->getArg(i);
        if (const auto *defaultArg = dyn_cast<CXXDefaultArgExpr>(arg))
          arg = defaultArg->getExpr();
        values[i] = evaluateInt(arg);
      }
      dim.x = values[0];
      dim.y = values[1];
      dim.z = values[2];
      return dim;
    }
    if (const auto *ref = dyn_cast<DeclRefExpr>(stripped))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        if (var->hasInit() && !assigned_.count(var) && !isa<ParmVarDecl>(var)) {
          Dim3 inner = evaluateDim3(var->getInit(), depth + 1);
          inner.expression = dim.expression;
          return inner;
        }
    if (!stripped->getType().isNull() && stripped->getType()->isIntegralOrEnumerationType()) {
      dim.x = evaluateInt(stripped);
      dim.y = 1;
      dim.z = 1;
    }
    return dim;
  }

  void recordLaunch(const CUDAKernelCallExpr *launch, unsigned loopDepth) {
    const FunctionDecl *kernel = launch->getDirectCallee();
    if (!kernel)
      if (const auto *ref = dyn_cast<DeclRefExpr>(launch->getCallee()->IgnoreImplicit()))
        kernel = dyn_cast<FunctionDecl>(ref->getDecl());
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
        fact.grid = evaluateDim3(config->getArg(0));
      if (config->getNumArgs() > 1)
        fact.block = evaluateDim3(config->getArg(1));
      if (config->getNumArgs() > 2 && !isa<CXXDefaultArgExpr>(config->getArg(2)))
        fact.dynamicSharedBytes = evaluateInt(config->getArg(2));
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
