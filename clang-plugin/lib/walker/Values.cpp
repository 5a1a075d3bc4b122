// KernelWalker, values: constants and opaque symbols, type sizes and offsets,
// constant folding, kernel parameters and the threadIdx/blockIdx/... builtins.
#include "KernelWalker.h"

#include "../AnalysisContext.h"

#include <algorithm>

#include <cstring>

namespace cudaperf::analysis {

using namespace clang;
using namespace walker;

namespace {

const char *kDimNames = "xyz";

} // namespace

Value KernelWalker::constant(std::int64_t value) {
  Value result;
  result.poly = Polynomial::constant(value);
  return result;
}

Value KernelWalker::opaque(Variance variance, bool fromMemory, bool fromParam, const std::string &name,
                           unsigned groupLanes) {
  Value result;
  result.poly = Polynomial::symbol(symbols_.opaque(variance, fromMemory, fromParam, name, groupLanes));
  return result;
}

unsigned KernelWalker::groupLanesOf(const Value &value) const { return value.poly.groupLanes(symbols_); }

Variance KernelWalker::varianceOf(const Value &value) const { return value.poly.variance(symbols_); }

bool KernelWalker::memoryOf(const Value &value) const { return value.poly.fromMemory(symbols_); }

bool KernelWalker::paramOf(const Value &value) const { return value.poly.fromParam(symbols_); }

// An opaque value that varies, and derives from memory/params, like all of `values`.
Value KernelWalker::opaqueJoin(std::initializer_list<const Value *> values, Variance extra) {
  Variance variance = extra;
  bool memory = false, param = false;
  unsigned lanes = extra == Variance::LaneVarying ? 1 : 32;
  for (const Value *value : values) {
    variance = join(variance, varianceOf(*value));
    memory |= memoryOf(*value);
    param |= paramOf(*value);
    lanes = std::min(lanes, groupLanesOf(*value));
  }
  return opaque(variance, memory, param, "?", lanes);
}

// Keeps a pointer's memory object but forgets its offset (loop-carried pointers).
Value KernelWalker::forgetOffset(const Value &value, Variance extra) {
  Value result = value;
  result.poly = opaqueJoin({&value}, extra).poly;
  return result;
}

Value KernelWalker::normalized(Value value) {
  if (value.poly.tooLarge())
    value.poly = Polynomial::symbol(
        symbols_.opaque(varianceOf(value), memoryOf(value), paramOf(value), "large", groupLanesOf(value)));
  return value;
}

std::optional<std::int64_t> KernelWalker::typeSize(QualType type) const {
  if (type.isNull())
    return std::nullopt;
  type = type.getNonReferenceType();
  if (type->isDependentType() || type->isIncompleteType() || type->isUndeducedType() || type->containsErrors() ||
      type->isVoidType() || type->isFunctionType() || type->isSizelessType())
    return std::nullopt;
  if (const auto *record = type->getBaseElementTypeUnsafe()->getAsRecordDecl())
    if (record->isInvalidDecl() || !record->isCompleteDefinition() || record->isDependentType())
      return std::nullopt;
  return ast_.getTypeSizeInChars(type).getQuantity();
}

std::optional<std::int64_t> KernelWalker::fieldOffset(const FieldDecl *field) const {
  const RecordDecl *record = field->getParent();
  if (!record || record->isInvalidDecl() || !record->isCompleteDefinition() || record->isDependentType() ||
      field->isBitField())
    return std::nullopt;
  return static_cast<std::int64_t>(ast_.getFieldOffset(field) / 8);
}

std::optional<std::int64_t> KernelWalker::evaluateInt(const Expr *expr) const {
  if (!expr || expr->getType().isNull() || expr->isValueDependent() || expr->isTypeDependent() ||
      expr->containsErrors() || !expr->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult result;
  if (!expr->EvaluateAsInt(result, ast_, Expr::SE_NoSideEffects) || !result.Val.isInt())
    return std::nullopt;
  const llvm::APSInt &value = result.Val.getInt();
  if (!value.isRepresentableByInt64())
    return std::nullopt;
  return value.getExtValue();
}

std::string KernelWalker::text(const Stmt *stmt) const { return sourceText(ast_, stmt->getSourceRange()); }

void KernelWalker::bindKernelParam(const ParmVarDecl *param) {
  const QualType type = param->getType();
  if (type->isPointerType() || type->isArrayType()) {
    Value pointer;
    pointer.isPointer = true;
    pointer.base = param;
    pointer.baseName = param->getNameAsString();
    pointer.space = MemorySpace::Global;
    env_[param] = pointer;
    if (type.isRestrictQualified())
      ++facts_.restrictPointers;
  } else if (type->isIntegralOrEnumerationType()) {
    Value value;
    value.poly = Polynomial::symbol(symbols_.param(param->getNameAsString()));
    env_[param] = value;
  } else {
    env_[param] = opaque(Variance::Uniform, false, true, param->getNameAsString());
  }
}

// threadIdx.x and friends: a PseudoObjectExpr over an MSPropertyRefExpr in Clang.
std::optional<SymbolId> KernelWalker::builtinIndex(const Expr *expr) const {
  expr = expr->IgnoreParenImpCasts();
  const Expr *base = nullptr;
  llvm::StringRef member;
  if (const auto *pseudo = dyn_cast<PseudoObjectExpr>(expr)) {
    if (const auto *property = dyn_cast<MSPropertyRefExpr>(pseudo->getSyntacticForm()->IgnoreParens())) {
      base = property->getBaseExpr();
      member = property->getPropertyDecl()->getName();
    }
  } else if (const auto *memberExpr = dyn_cast<MemberExpr>(expr)) {
    llvm::StringRef name = memberExpr->getMemberDecl()->getName();
    if (name.consume_front("__fetch_builtin_")) {
      base = memberExpr->getBase();
      member = name;
    }
  }
  if (!base || member.size() != 1)
    return std::nullopt;
  base = base->IgnoreParenImpCasts();
  if (const auto *opaqueBase = dyn_cast<OpaqueValueExpr>(base); opaqueBase && opaqueBase->getSourceExpr())
    base = opaqueBase->getSourceExpr()->IgnoreParenImpCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(base);
  if (!ref)
    return std::nullopt;
  const auto varName = ref->getDecl()->getName();
  int kind = -1;
  if (varName == "threadIdx")
    kind = 0;
  else if (varName == "blockIdx")
    kind = 1;
  else if (varName == "blockDim")
    kind = 2;
  else if (varName == "gridDim")
    kind = 3;
  const char *dim = std::strchr(kDimNames, member[0]);
  if (kind < 0 || !dim)
    return std::nullopt;
  return symbols_.builtin(static_cast<SymbolKind>(kind), static_cast<int>(dim - kDimNames));
}

} // namespace cudaperf::analysis
