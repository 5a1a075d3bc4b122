// The AST helpers shared by the KernelWalker files (declared in WalkerValues.h):
// assigned and updated variables, return statements, half/bf16/vector types.
#include "WalkerValues.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>

#include <regex>

namespace cudaperf::analysis::walker {

using namespace clang;

const VarDecl *referencedVar(const Expr *expr) {
  if (!expr)
    return nullptr;
  if (const auto *ref = dyn_cast<DeclRefExpr>(expr->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(ref->getDecl());
  return nullptr;
}

// Variables written anywhere in a statement (assignments, ++/--, address taken).
void collectAssigned(const Stmt *stmt, std::set<const VarDecl *> &out) {
  if (!stmt || isa<LambdaExpr>(stmt))
    return;
  if (const auto *op = dyn_cast<BinaryOperator>(stmt)) {
    if (op->isAssignmentOp())
      if (const auto *var = referencedVar(op->getLHS()))
        out.insert(var);
  } else if (const auto *op = dyn_cast<UnaryOperator>(stmt)) {
    if (op->isIncrementDecrementOp() || op->getOpcode() == UO_AddrOf)
      if (const auto *var = referencedVar(op->getSubExpr()))
        out.insert(var);
  } else if (const auto *call = dyn_cast<CXXOperatorCallExpr>(stmt)) {
    if (call->isAssignmentOp() && call->getNumArgs() > 0)
      if (const auto *var = referencedVar(call->getArg(0)))
        out.insert(var);
  }
  for (const Stmt *child : stmt->children())
    collectAssigned(child, out);
}

bool mentionsAny(const Stmt *stmt, const std::set<const VarDecl *> &vars) {
  if (!stmt)
    return false;
  if (const auto *ref = dyn_cast<DeclRefExpr>(stmt))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && vars.count(var))
      return true;
  for (const Stmt *child : stmt->children())
    if (mentionsAny(child, vars))
      return true;
  return false;
}

bool containsReturn(const Stmt *stmt) {
  if (!stmt || isa<LambdaExpr>(stmt))
    return false;
  if (isa<ReturnStmt>(stmt))
    return true;
  for (const Stmt *child : stmt->children())
    if (containsReturn(child))
      return true;
  return false;
}

// Classifies how a statement updates variables: additive steps (v += e, ++v)
// executed once per iteration, or anything else.
void collectUpdates(const Stmt *stmt, bool unconditional, std::map<const VarDecl *, UpdateSet> &out) {
  if (!stmt || isa<LambdaExpr>(stmt))
    return;
  if (const auto *op = dyn_cast<UnaryOperator>(stmt); op && op->isIncrementDecrementOp()) {
    if (const auto *var = referencedVar(op->getSubExpr())) {
      auto &set = out[var];
      if (unconditional)
        set.updates.push_back({nullptr, op->isIncrementOp() ? 1 : -1});
      else
        set.nonAdditive = true;
    }
  } else if (const auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp()) {
    if (const auto *var = referencedVar(op->getLHS())) {
      auto &set = out[var];
      bool additive = false;
      if (unconditional && (op->getOpcode() == BO_AddAssign || op->getOpcode() == BO_SubAssign)) {
        set.updates.push_back({op->getRHS(), op->getOpcode() == BO_AddAssign ? 1 : -1});
        additive = true;
      } else if (unconditional && op->getOpcode() == BO_Assign) {
        if (const auto *sum = dyn_cast<BinaryOperator>(op->getRHS()->IgnoreParenImpCasts());
            sum && (sum->getOpcode() == BO_Add || sum->getOpcode() == BO_Sub)) {
          if (referencedVar(sum->getLHS()) == var) {
            set.updates.push_back({sum->getRHS(), sum->getOpcode() == BO_Add ? 1 : -1});
            additive = true;
          } else if (sum->getOpcode() == BO_Add && referencedVar(sum->getRHS()) == var) {
            set.updates.push_back({sum->getLHS(), 1});
            additive = true;
          }
        }
      }
      if (!additive)
        set.nonAdditive = true;
    }
  } else if (const auto *op = dyn_cast<UnaryOperator>(stmt); op && op->getOpcode() == UO_AddrOf) {
    if (const auto *var = referencedVar(op->getSubExpr()))
      out[var].nonAdditive = true;
  }
  // Only the top level of a loop body runs exactly once per iteration.
  const bool childUnconditional =
      unconditional && (isa<CompoundStmt>(stmt) || isa<ExprWithCleanups>(stmt) || isa<ParenExpr>(stmt) ||
                        isa<ImplicitCastExpr>(stmt) || isa<BinaryOperator>(stmt) || isa<UnaryOperator>(stmt));
  for (const Stmt *child : stmt->children())
    collectUpdates(child, childUnconditional && !isa<BinaryOperator>(stmt), out);
}

bool isHalfType(QualType type) {
  if (type.isNull())
    return false;
  type = type.getNonReferenceType();
  if (type->isFloat16Type() || type->isHalfType())
    return true;
  if (const auto *record = type->getAsRecordDecl()) {
    const auto name = record->getName();
    return name == "__half" || name == "__half2" || name == "half" || name == "half2";
  }
  return false;
}

bool isBf16Type(QualType type) {
  if (type.isNull())
    return false;
  type = type.getNonReferenceType();
  if (type->isBFloat16Type())
    return true;
  if (const auto *record = type->getAsRecordDecl())
    return record->getName().starts_with("__nv_bfloat16");
  return false;
}

bool isFloatingLike(QualType type) {
  if (type.isNull())
    return false;
  type = type.getNonReferenceType();
  return type->isRealFloatingType() || isHalfType(type) || isBf16Type(type);
}

bool isVectorAccessType(QualType type) {
  if (type.isNull())
    return false;
  type = type.getNonReferenceType();
  if (type->isVectorType() || type->isExtVectorType())
    return true;
  const auto *record = type->getAsRecordDecl();
  if (!record)
    return false;
  static const std::regex vectorName(
      "(u?char|u?short|u?int|u?long|longlong|ulonglong|float|double)[2-4]|__half2|half2|__nv_bfloat162");
  return std::regex_match(record->getName().str(), vectorName);
}

} // namespace cudaperf::analysis::walker
