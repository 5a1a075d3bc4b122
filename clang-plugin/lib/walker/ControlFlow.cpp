// KernelWalker, branches and control flow: the kernel entry, branch facts and
// bounds guards, environment merges, loops (widening, induction variables) and statements.
#include "KernelWalker.h"

#include <clang/AST/Attr.h>
#include <clang/AST/StmtCXX.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace cudaperf::analysis {

using namespace clang;
using namespace walker;

void KernelWalker::walkKernel(const FunctionDecl *kernel) {
  callStack_.push_back(kernel);
  for (const ParmVarDecl *param : kernel->parameters())
    bindKernelParam(param);
  walkStmt(kernel->getBody());
  callStack_.pop_back();
  if (steps_ > kMaxSteps)
    budgetExhausted_ = true;
}

Value KernelWalker::pureEval(const Expr *expr) {
  const bool savedRecording = recording_;
  Env saved = env_;
  recording_ = false;
  Value value = eval(expr);
  env_ = std::move(saved);
  recording_ = savedRecording;
  return value;
}

// A thread index that is affine in threadIdx with thread-invariant coefficients.
bool KernelWalker::isAffineThreadIndex(const Value &value) const {
  if (value.isPointer)
    return false;
  bool hasThread = false;
  Polynomial rest = value.poly;
  // threadIdx.x/y/z, and the group of a sub-warp index (`row = tid / 8`):
  // that one rises with the lane, so compared with a size it cuts a warp once,
  // as `tid < n` does. The lane within a group (`tid % 8`) repeats across the
  // warp: `tid % 8 < k` splits every warp, never a guard; beside a block
  // index or a loop counter (`t + tid % 16 < k`, a tile's column against the
  // matrix's) it cuts only the last tile or block, as a guard does.
  const bool sweeps = value.poly.containsKind(symbols_, SymbolKind::BlockIdx) ||
                      value.poly.containsKind(symbols_, SymbolKind::LoopCounter);
  std::vector<SymbolId> groups;
  for (const auto &[monomial, coefficient] : value.poly.terms())
    for (SymbolId symbol : monomial) {
      const SymbolKind kind = symbols_[symbol].kind;
      if (kind == SymbolKind::LaneInGroup && !sweeps)
        return false;
      if ((kind == SymbolKind::LaneGroup || kind == SymbolKind::LaneInGroup) &&
          std::find(groups.begin(), groups.end(), symbol) == groups.end())
        groups.push_back(symbol);
    }
  for (SymbolId group : groups) {
    auto coefficient = value.poly.derivative(group);
    if (!coefficient || !coefficient->constantValue() || *coefficient->constantValue() <= 0)
      return false;
    hasThread = true;
    rest = rest.without(group);
  }
  if (!groups.empty()) {
    // Beside a group, threadIdx.x must rise with it too (`t / 8 - t` does not).
    auto lane = value.poly.derivative(lane_);
    if (!lane || (!lane->isZero() && (!lane->constantValue() || *lane->constantValue() < 0)))
      return false;
  }
  for (int dim = 0; dim < 3; ++dim) {
    const SymbolId thread = symbols_.builtin(SymbolKind::ThreadIdx, dim);
    auto coefficient = value.poly.derivative(thread);
    if (!coefficient)
      return false;
    if (coefficient->isZero())
      continue;
    // A constant or thread-invariant coefficient (a chunk size parameter).
    if (coefficient->variance(symbols_) != Variance::Uniform)
      return false;
    hasThread = true;
    rest = rest.without(thread);
  }
  return hasThread && rest.variance(symbols_) == Variance::Uniform;
}

// `i < n` on a global index (or a grid-stride loop variable) against a
// problem size: divergent only in the last, partial warp.
bool KernelWalker::isBoundsGuard(const Expr *condition) {
  condition = condition->IgnoreParenImpCasts();
  if (const auto *op = dyn_cast<BinaryOperator>(condition)) {
    if (op->getOpcode() == BO_LAnd || op->getOpcode() == BO_LOr) {
      const bool leftGuard = isBoundsGuard(op->getLHS());
      const bool rightGuard = isBoundsGuard(op->getRHS());
      const bool leftOk = leftGuard || varianceOf(pureEval(op->getLHS())) == Variance::Uniform;
      const bool rightOk = rightGuard || varianceOf(pureEval(op->getRHS())) == Variance::Uniform;
      return (leftGuard || rightGuard) && leftOk && rightOk;
    }
    if (op->isRelationalOp()) {
      Value left = pureEval(op->getLHS());
      Value right = pureEval(op->getRHS());
      const bool leftThread = varianceOf(left) != Variance::Uniform;
      const bool rightThread = varianceOf(right) != Variance::Uniform;
      if (leftThread == rightThread)
        return false;
      const Value &index = leftThread ? left : right;
      const Value &bound = leftThread ? right : left;
      if (!isAffineThreadIndex(index))
        return false;
      const bool globalIndex = index.poly.containsKind(symbols_, SymbolKind::BlockIdx) ||
                               index.poly.containsKind(symbols_, SymbolKind::LoopCounter);
      return globalIndex || paramOf(bound) || bound.poly.containsKind(symbols_, SymbolKind::Param);
    }
  }
  if (const auto *op = dyn_cast<UnaryOperator>(condition); op && op->getOpcode() == UO_LNot)
    return isBoundsGuard(op->getSubExpr());
  return false;
}

// Records a branch and returns how its condition varies (the control variance).
Variance KernelWalker::recordBranch(SourceLocation loc, BranchKind kind, const Expr *condition, const Value &value) {
  const Variance variance = varianceOf(value);
  if (!recording_)
    return variance;
  BranchFact fact;
  fact.loc = loc;
  fact.kind = kind;
  fact.condition = condition ? text(condition) : "";
  fact.variance = variance;
  fact.boundsGuard = condition && variance != Variance::Uniform && isBoundsGuard(condition);
  fact.loopDepth = loopDepth_;
  facts_.branches.push_back(fact);
  return variance;
}

Env KernelWalker::merge(const Env &a, const Env &b, Variance control) {
  Env result;
  for (const auto &[var, value] : a) {
    auto it = b.find(var);
    if (it == b.end())
      continue; // declared in one branch only: out of scope after the join
    if (value.sameAs(it->second)) {
      result[var] = value;
      continue;
    }
    Value merged = opaqueJoin({&value, &it->second}, control);
    if (value.isPointer && it->second.isPointer && value.base == it->second.base) {
      Value pointer = value;
      pointer.poly = merged.poly;
      merged = pointer;
    }
    result[var] = merged;
  }
  return result;
}

std::set<const VarDecl *> KernelWalker::carriedVars(std::initializer_list<const Stmt *> parts) {
  std::set<const VarDecl *> assigned, carried;
  for (const Stmt *part : parts)
    collectAssigned(part, assigned);
  for (const VarDecl *var : assigned)
    if (env_.count(var))
      carried.insert(var);
  return carried;
}

// Values carried around a loop: re-walk the body (without recording) until
// the variance of each carried variable stops growing.
void KernelWalker::widen(const std::set<const VarDecl *> &vars, std::initializer_list<const Stmt *> parts) {
  if (vars.empty())
    return;
  std::map<const VarDecl *, Variance> variance;
  for (const VarDecl *var : vars)
    variance[var] = varianceOf(env_[var]);
  const int iterations = dryDepth_ > 0 ? 1 : 3;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (const VarDecl *var : vars)
      env_[var] = forgetOffset(env_[var], variance[var]);
    Env saved = env_;
    const bool savedRecording = recording_;
    recording_ = false;
    ++dryDepth_;
    for (const Stmt *part : parts) {
      if (const auto *expr = dyn_cast_or_null<Expr>(part))
        eval(expr);
      else
        walkStmt(part);
    }
    --dryDepth_;
    recording_ = savedRecording;
    bool changed = false;
    for (const VarDecl *var : vars) {
      Variance after = variance[var];
      if (auto it = env_.find(var); it != env_.end()) {
        after = join(after, varianceOf(it->second));
        if (it->second.isPointer != saved[var].isPointer || it->second.base != saved[var].base)
          saved[var].base = nullptr;
      }
      changed |= after != variance[var];
      variance[var] = after;
    }
    env_ = std::move(saved);
    if (!changed)
      break;
  }
  for (const VarDecl *var : vars)
    env_[var] = forgetOffset(env_[var], variance[var]);
}

double KernelWalker::constantTripCount(const ForStmt *loop, const VarDecl *induction, std::int64_t step) {
  if (!induction || step == 0)
    return kDefaultTripCount;
  std::optional<std::int64_t> start;
  if (const auto *init = induction->getInit())
    start = evaluateInt(init);
  const auto *condition =
      dyn_cast_or_null<BinaryOperator>(loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!start || !condition || referencedVar(condition->getLHS()) != induction)
    return kDefaultTripCount;
  auto bound = evaluateInt(condition->getRHS()->IgnoreParenImpCasts());
  if (!bound)
    return kDefaultTripCount;
  std::int64_t span = 0;
  switch (condition->getOpcode()) {
  case BO_LT:
    span = *bound - *start;
    break;
  case BO_LE:
    span = *bound - *start + 1;
    break;
  case BO_GT:
    span = *start - *bound;
    break;
  case BO_GE:
    span = *start - *bound + 1;
    break;
  case BO_NE:
    span = std::llabs(*bound - *start);
    break;
  default:
    return kDefaultTripCount;
  }
  const std::int64_t magnitude = std::llabs(step);
  if (span <= 0)
    return 0;
  return static_cast<double>((span + magnitude - 1) / magnitude);
}

void KernelWalker::walkLoopBody(const Stmt *body, Variance control, double trips, SourceLocation condition) {
  control_.emplace_back(control, condition);
  ++loopDepth_;
  const double savedWeight = tripWeight_;
  tripWeight_ *= std::max(trips, 1.0);
  walkStmt(body);
  tripWeight_ = savedWeight;
  --loopDepth_;
  control_.pop_back();
}

void KernelWalker::finishLoop(const std::set<const VarDecl *> &vars, Variance control) {
  for (const VarDecl *var : vars)
    if (env_.count(var))
      env_[var] = forgetOffset(env_[var], control);
}

void KernelWalker::walkFor(const ForStmt *loop) {
  walkStmt(loop->getInit());
  if (const auto *conditionVar = loop->getConditionVariable())
    declare(conditionVar);
  auto carried = carriedVars({loop->getBody(), loop->getInc(), loop->getCond()});

  // Induction variables: additive, loop-invariant steps once per iteration.
  std::map<const VarDecl *, UpdateSet> updates;
  collectUpdates(loop->getInc(), true, updates);
  collectUpdates(loop->getBody(), true, updates);
  std::set<const VarDecl *> inductions;
  const VarDecl *primary = nullptr;
  std::int64_t primaryStep = 0;
  SymbolId counter = -1;
  for (const VarDecl *var : carried) {
    auto it = updates.find(var);
    if (it == updates.end() || it->second.nonAdditive || it->second.updates.empty())
      continue;
    bool invariant = true;
    for (const Update &update : it->second.updates)
      invariant &= !update.step || !mentionsAny(update.step, carried);
    if (!invariant)
      continue;
    if (counter < 0)
      counter = symbols_.loopCounter(var->getNameAsString());
    Value step = constant(0);
    for (const Update &update : it->second.updates) {
      Value one = update.step ? pureEval(update.step) : constant(1);
      if (one.isPointer)
        one = opaqueJoin({&one});
      step.poly = step.poly + one.poly.scaled(update.sign);
    }
    Value &current = env_[var];
    const Value before = current;
    if (current.isPointer && var->getType()->isPointerType()) {
      const std::int64_t size = typeSize(var->getType()->getPointeeType()).value_or(1);
      current.poly = current.poly + (Polynomial::symbol(counter) * step.poly).scaled(size);
    } else if (var->getType()->isIntegralOrEnumerationType()) {
      current.poly = current.poly + Polynomial::symbol(counter) * step.poly;
    } else {
      continue;
    }
    current = normalized(current);
    inductions.insert(var);
    if (!primary && var->getType()->isIntegralOrEnumerationType()) {
      primary = var;
      primaryStep = step.poly.constantValue().value_or(0);
      // Grid-stride: starts at the global thread index, steps by the grid size.
      if (recording_ && before.poly.contains(lane_) && before.poly.containsKind(symbols_, SymbolKind::BlockIdx) &&
          step.poly.containsKind(symbols_, SymbolKind::GridDim))
        ++facts_.gridStrideLoops;
    }
  }
  std::set<const VarDecl *> others;
  for (const VarDecl *var : carried)
    if (!inductions.count(var))
      others.insert(var);
  widen(others, {loop->getBody(), loop->getInc()});

  Variance control = Variance::Uniform;
  if (loop->getCond()) {
    Value condition = eval(loop->getCond());
    control = recordBranch(loop->getForLoc(), BranchKind::For, loop->getCond(), condition);
  }
  const double trips = primary ? constantTripCount(loop, primary, primaryStep) : kDefaultTripCount;
  walkLoopBody(loop->getBody(), control, trips, loop->getCond() ? loop->getCond()->getBeginLoc() : loop->getForLoc());
  if (loop->getInc()) {
    Env saved = env_;
    eval(loop->getInc());
    env_ = std::move(saved);
  }
  finishLoop(carried, control);
}

void KernelWalker::walkWhile(const Expr *condition, const Stmt *body, BranchKind kind, SourceLocation loc) {
  auto carried = carriedVars({body, condition});
  widen(carried, {body, condition});
  Variance control = Variance::Uniform;
  if (kind == BranchKind::While) {
    Value value = eval(condition);
    control = recordBranch(loc, kind, condition, value);
    walkLoopBody(body, control, kDefaultTripCount, condition->getBeginLoc());
  } else {
    walkLoopBody(body, Variance::Uniform, kDefaultTripCount, condition->getBeginLoc());
    Value value = eval(condition);
    control = recordBranch(loc, kind, condition, value);
  }
  finishLoop(carried, control);
}

void KernelWalker::walkIf(const IfStmt *branch) {
  walkStmt(branch->getInit());
  if (const auto *conditionVar = branch->getConditionVariable())
    declare(conditionVar);
  Value condition = eval(branch->getCond());
  Variance control = branch->isConstexpr()
                         ? Variance::Uniform
                         : recordBranch(branch->getIfLoc(), BranchKind::If, branch->getCond(), condition);
  control_.emplace_back(control, branch->getCond()->getBeginLoc());
  Env before = env_;
  walkStmt(branch->getThen());
  Env afterThen = env_;
  env_ = before;
  walkStmt(branch->getElse());
  env_ = merge(afterThen, env_, control);
  control_.pop_back();
  if (control != Variance::Uniform && (containsReturn(branch->getThen()) || containsReturn(branch->getElse()))) {
    if (!threadDependentExit_)
      threadDependentExitLoc_ = branch->getCond()->getBeginLoc();
    threadDependentExit_ = true;
  }
}

void KernelWalker::walkSwitch(const SwitchStmt *switchStmt) {
  walkStmt(switchStmt->getInit());
  Value condition = eval(switchStmt->getCond());
  const Variance control =
      recordBranch(switchStmt->getSwitchLoc(), BranchKind::Switch, switchStmt->getCond(), condition);
  control_.emplace_back(control, switchStmt->getCond()->getBeginLoc());
  Env before = env_;
  walkStmt(switchStmt->getBody());
  env_ = merge(before, env_, control);
  control_.pop_back();
}

void KernelWalker::declare(const VarDecl *var) {
  if (var->hasAttr<CUDASharedAttr>()) {
    noteSharedDecl(var);
    return;
  }
  if (var->hasGlobalStorage() || var->isStaticLocal())
    return;
  const QualType type = var->getType();
  const Expr *init = var->getInit();
  if (type->isArrayType()) {
    if (init)
      eval(init);
    return;
  }
  if (type->isReferenceType() && init) {
    if (auto address = this->address(init)) {
      Value reference = address->pointer;
      reference.isPointer = false;
      reference.isReference = true;
      env_[var] = reference;
      return;
    }
  }
  Value value = init ? eval(init) : opaque(Variance::Uniform, false, false, var->getNameAsString());
  if (!type->isReferenceType())
    value.isReference = false;
  if (type->isPointerType() && !value.isPointer) {
    Value pointer;
    pointer.isPointer = true;
    pointer.baseName = var->getNameAsString();
    pointer.poly = value.poly;
    value = pointer;
  }
  env_[var] = value;
}

void KernelWalker::walkStmt(const Stmt *stmt) {
  if (!stmt)
    return;
  if (++steps_ > kMaxSteps)
    return;
  if (const auto *expr = dyn_cast<Expr>(stmt)) {
    eval(expr);
    return;
  }
  switch (stmt->getStmtClass()) {
  case Stmt::CompoundStmtClass:
    for (const Stmt *child : cast<CompoundStmt>(stmt)->body())
      walkStmt(child);
    return;
  case Stmt::DeclStmtClass:
    for (const Decl *decl : cast<DeclStmt>(stmt)->decls())
      if (const auto *var = dyn_cast<VarDecl>(decl))
        declare(var);
    return;
  case Stmt::IfStmtClass:
    walkIf(cast<IfStmt>(stmt));
    return;
  case Stmt::ForStmtClass:
    walkFor(cast<ForStmt>(stmt));
    return;
  case Stmt::WhileStmtClass: {
    const auto *loop = cast<WhileStmt>(stmt);
    if (const auto *conditionVar = loop->getConditionVariable())
      declare(conditionVar);
    walkWhile(loop->getCond(), loop->getBody(), BranchKind::While, loop->getWhileLoc());
    return;
  }
  case Stmt::DoStmtClass: {
    const auto *loop = cast<DoStmt>(stmt);
    walkWhile(loop->getCond(), loop->getBody(), BranchKind::Do, loop->getDoLoc());
    return;
  }
  case Stmt::CXXForRangeStmtClass: {
    const auto *loop = cast<CXXForRangeStmt>(stmt);
    walkStmt(loop->getRangeStmt());
    walkStmt(loop->getBeginStmt());
    walkStmt(loop->getEndStmt());
    if (const auto *var = loop->getLoopVariable())
      env_[var] = opaque(Variance::LaneVarying);
    auto carried = carriedVars({loop->getBody()});
    widen(carried, {loop->getBody()});
    walkLoopBody(loop->getBody(), Variance::Uniform, kDefaultTripCount, loop->getForLoc());
    finishLoop(carried, Variance::Uniform);
    return;
  }
  case Stmt::SwitchStmtClass:
    walkSwitch(cast<SwitchStmt>(stmt));
    return;
  case Stmt::ReturnStmtClass: {
    Value value = eval(cast<ReturnStmt>(stmt)->getRetValue());
    if (returns_)
      returns_->push_back(value);
    return;
  }
  case Stmt::AttributedStmtClass: {
    const auto *attributed = cast<AttributedStmt>(stmt);
    for (const Attr *attr : attributed->getAttrs())
      if (isa<LoopHintAttr>(attr) && recording_) {
        ++facts_.unrollPragmas;
        break;
      }
    walkStmt(attributed->getSubStmt());
    return;
  }
  case Stmt::GCCAsmStmtClass: {
    const auto *assembly = cast<GCCAsmStmt>(stmt);
    const std::string code = assembly->getAsmString()->getString().str();
    if (recording_ && (code.find("mma") != std::string::npos))
      ++facts_.tensorCoreOps;
    evalChildren(stmt);
    return;
  }
  default:
    for (const Stmt *child : stmt->children())
      walkStmt(child);
  }
}

} // namespace cudaperf::analysis
