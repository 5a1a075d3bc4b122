// KernelWalker, expressions: evaluation of casts, arithmetic, assignments,
// unary and conditional operators, constructors and operator calls.
#include "KernelWalker.h"

#include <clang/AST/DeclCXX.h>

#include <algorithm>
#include <cstdlib>

namespace cudaperf::analysis {

using namespace clang;
using namespace walker;

Value KernelWalker::eval(const Expr *expr) {
  if (!expr)
    return opaque(Variance::Uniform);
  if (++steps_ > kMaxSteps)
    return opaque(Variance::LaneVarying);
  expr = expr->IgnoreParens();
  // Broken code (error recovery) can leave expressions without a type.
  if (expr->getType().isNull() || expr->containsErrors())
    return evalChildren(expr);
  if (auto value = evaluateInt(expr))
    return constant(*value);
  if (auto builtin = builtinIndex(expr)) {
    Value value;
    value.poly = Polynomial::symbol(*builtin);
    return value;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(expr))
    return evalDeclRef(ref);
  if (const auto *cast = dyn_cast<CastExpr>(expr))
    return evalCast(cast);
  if (const auto *op = dyn_cast<BinaryOperator>(expr))
    return evalBinary(op);
  if (const auto *op = dyn_cast<UnaryOperator>(expr))
    return evalUnary(op);
  if (const auto *call = dyn_cast<CXXOperatorCallExpr>(expr))
    return evalOperatorCall(call);
  if (const auto *call = dyn_cast<CallExpr>(expr))
    return evalCall(call);
  if (const auto *conditional = dyn_cast<AbstractConditionalOperator>(expr))
    return evalConditional(conditional);
  if (const auto *construct = dyn_cast<CXXConstructExpr>(expr))
    return evalConstruct(construct);
  if (isa<ArraySubscriptExpr>(expr) || isa<MemberExpr>(expr)) {
    // An lvalue not read here: bound to a reference or a member of a register struct.
    if (auto address = this->address(expr)) {
      Value reference = address->pointer;
      reference.isPointer = false;
      reference.isReference = true;
      return reference;
    }
    if (const auto *member = dyn_cast<MemberExpr>(expr))
      return registerMember(member);
    return opaque(Variance::LaneVarying);
  }
  if (const auto *pseudo = dyn_cast<PseudoObjectExpr>(expr))
    return eval(pseudo->getResultExpr());
  if (const auto *temp = dyn_cast<MaterializeTemporaryExpr>(expr))
    return eval(temp->getSubExpr());
  if (const auto *full = dyn_cast<FullExpr>(expr))
    return eval(full->getSubExpr());
  if (const auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr))
    return eval(bind->getSubExpr());
  if (const auto *defaultArg = dyn_cast<CXXDefaultArgExpr>(expr))
    return eval(defaultArg->getExpr());
  if (const auto *subst = dyn_cast<SubstNonTypeTemplateParmExpr>(expr))
    return eval(subst->getReplacement());
  if (const auto *opaqueExpr = dyn_cast<OpaqueValueExpr>(expr))
    return opaqueExpr->getSourceExpr() ? eval(opaqueExpr->getSourceExpr()) : opaque(Variance::LaneVarying);
  if (isa<FloatingLiteral>(expr) || isa<StringLiteral>(expr) || isa<CXXNullPtrLiteralExpr>(expr) ||
      isa<UnaryExprOrTypeTraitExpr>(expr) || isa<LambdaExpr>(expr))
    return opaque(Variance::Uniform);
  if (isa<CXXThisExpr>(expr))
    return thisPointer_ ? *thisPointer_ : opaque(Variance::Uniform);
  if (const auto *stmtExpr = dyn_cast<StmtExpr>(expr)) {
    walkStmt(stmtExpr->getSubStmt());
    return opaque(Variance::LaneVarying);
  }
  return evalChildren(expr);
}

// Anything we do not model: its sub-expressions still count (accesses, ops).
Value KernelWalker::evalChildren(const Stmt *stmt) {
  Variance variance = Variance::Uniform;
  bool memory = false, param = false;
  unsigned lanes = 32;
  for (const Stmt *child : stmt->children()) {
    if (const auto *childExpr = dyn_cast_or_null<Expr>(child)) {
      Value value = eval(childExpr);
      variance = join(variance, varianceOf(value));
      memory |= memoryOf(value);
      param |= paramOf(value);
      lanes = std::min(lanes, groupLanesOf(value));
    }
  }
  return opaque(variance, memory, param, "?", lanes);
}

Value KernelWalker::evalDeclRef(const DeclRefExpr *ref) {
  const auto *var = dyn_cast<VarDecl>(ref->getDecl());
  if (!var)
    return opaque(Variance::Uniform);
  if (auto it = env_.find(var); it != env_.end())
    return it->second;
  if (var->getName() == "warpSize")
    return constant(32);
  if (var->getType()->isArrayType())
    if (auto address = this->address(ref))
      return address->pointer;
  return opaque(Variance::Uniform, false, false, var->getNameAsString());
}

// `s.field` where `s` lives in registers (a by-value struct parameter or local).
Value KernelWalker::registerMember(const MemberExpr *member) {
  Value base = eval(member->getBase());
  if (member->getType()->isPointerType()) {
    Value pointer;
    pointer.isPointer = true;
    pointer.base = member->getMemberDecl();
    pointer.baseName = text(member);
    pointer.poly = opaqueJoin({&base}).poly;
    return pointer;
  }
  return opaqueJoin({&base});
}

Value KernelWalker::evalCast(const CastExpr *cast) {
  const Expr *sub = cast->getSubExpr();
  switch (cast->getCastKind()) {
  case CK_LValueToRValue: {
    if (auto address = this->address(sub))
      return load(cast, *address, cast->getType());
    if (const auto *member = dyn_cast<MemberExpr>(stripNoOps(sub)); member && !builtinIndex(member))
      return registerMember(member);
    return eval(sub);
  }
  case CK_ArrayToPointerDecay: {
    if (auto address = this->address(sub))
      return address->pointer;
    return eval(sub);
  }
  default:
    break;
  }
  Value value = eval(sub);
  const QualType to = cast->getType();
  if (to->isPointerType() && value.isPointer)
    return value; // pointer casts keep the memory object; the access type comes from the use
  if (to->isIntegralOrEnumerationType() && !to->isBooleanType() && sub->getType()->isIntegralOrEnumerationType() &&
      !value.isPointer)
    return value;
  if (value.isReference && !to->isReferenceType())
    value.isReference = false;
  if (to->isPointerType()) {
    Value pointer;
    pointer.isPointer = true;
    pointer.baseName = text(sub);
    pointer.poly = opaqueJoin({&value}).poly;
    return pointer;
  }
  return opaqueJoin({&value});
}

Value KernelWalker::pointerStep(const Value &pointer, const Value &offset, QualType pointerType, int sign) {
  Value result = pointer;
  const std::int64_t size = typeSize(pointerType->getPointeeType()).value_or(1);
  Value step = offset;
  if (step.isPointer)
    step = opaqueJoin({&offset});
  result.poly = pointer.poly + step.poly.scaled(size * sign);
  return normalized(result);
}

// Whether `rest`, added to the lane, keeps a warp's lanes aligned to groups
// of `divisor` and the dividend non-negative (C's `/` and `%` truncate
// toward zero, and only for a non-negative dividend is `(tid + k*d) / d`
// `tid / d + k`): every term a non-negative multiple of the divisor, or of
// blockDim.x (a block starts at a whole warp: the analysis's convention for
// `blockIdx.x * blockDim.x` and grid strides), over values that cannot be
// negative (the builtins and loop iteration counts). `(tid + 3) / 8`,
// `(tid + q) / 2` with a parameter or a loaded q, `(tid - 8) / 8`,
// `(tid + blockDim.z) / 2` and `(tid + 16 * threadIdx.y) / 32` are not: the
// groups shift or the rounding flips, and `(tid + q) / 2 - tid / 2` must not
// cancel to a uniform value. (Such a rest is warp-uniform: threadIdx.x is
// not in it, and threadIdx.y/z are by the analysis's convention.)
bool KernelWalker::keepsLaneAlignment(const Polynomial &rest, std::int64_t divisor) const {
  for (const auto &[monomial, coefficient] : rest.terms()) {
    if (coefficient < 0)
      return false;
    bool blockMultiple = false;
    for (SymbolId symbol : monomial) {
      const Symbol &s = symbols_[symbol];
      if (s.kind != SymbolKind::ThreadIdx && s.kind != SymbolKind::BlockIdx && s.kind != SymbolKind::BlockDim &&
          s.kind != SymbolKind::GridDim && s.kind != SymbolKind::LoopCounter)
        return false; // a parameter or a loaded value may be negative or odd
      blockMultiple |= s.kind == SymbolKind::BlockDim && s.dimension == 0;
    }
    if (!blockMultiple && coefficient % divisor != 0)
      return false;
  }
  return true;
}

// c*threadIdx.x + rest, with rest warp-uniform and aligned (above): `/ d`
// and `% d` split the lane into groups of d/c lanes (a power of two below
// 32). Sub-warp kernels index this way: a row per 8 lanes at `tid / 8`, its
// elements from `tid % 8`.
std::optional<Value> KernelWalker::splitLanes(const Value &value, std::int64_t divisor, bool remainder) {
  const auto laneCoefficient = value.poly.derivative(lane_);
  if (!laneCoefficient || !laneCoefficient->constantValue())
    return std::nullopt;
  const std::int64_t c = *laneCoefficient->constantValue();
  const Polynomial rest = value.poly.without(lane_);
  if (c <= 0 || divisor <= c || divisor % c != 0 || !keepsLaneAlignment(rest, divisor))
    return std::nullopt;
  const std::int64_t lanes = divisor / c;
  if (lanes >= 32 || (lanes & (lanes - 1)) != 0)
    return std::nullopt;
  Value result;
  if (remainder) {
    result.poly = Polynomial::symbol(symbols_.laneSplit(static_cast<unsigned>(lanes), true), c);
    return result;
  }
  const auto exact = rest.dividedExactly(divisor);
  result.poly = Polynomial::symbol(symbols_.laneSplit(static_cast<unsigned>(lanes), false)) +
                (exact ? *exact : opaque(rest.variance(symbols_)).poly); // builtins and loop counts only
  return result;
}

Value KernelWalker::divideByConstant(const Value &value, std::int64_t divisor) {
  if (divisor == 0)
    return opaqueJoin({&value});
  if (auto c = value.poly.constantValue())
    return constant(*c / divisor);
  if (auto quotient = value.poly.dividedExactly(divisor)) {
    Value result;
    result.poly = *quotient;
    return result;
  }
  const Variance variance = varianceOf(value);
  if (variance == Variance::LaneVarying) {
    // tid / 32 (or any multiple of 32 lanes): the same for a whole warp.
    auto laneCoefficient = value.poly.derivative(lane_);
    if (laneCoefficient && laneCoefficient->constantValue() && *laneCoefficient->constantValue() != 0) {
      const std::int64_t c = std::llabs(*laneCoefficient->constantValue());
      const Polynomial rest = value.poly.without(lane_);
      if (divisor % (32 * c) == 0 && keepsLaneAlignment(rest, divisor))
        return opaque(Variance::WarpUniform, memoryOf(value), paramOf(value), "warp");
    }
    if (auto group = splitLanes(value, divisor, false))
      return *group;
  }
  // A quotient changes no more often across lanes than what is divided.
  return opaque(variance, memoryOf(value), paramOf(value), "?", groupLanesOf(value));
}

Value KernelWalker::moduloConstant(const Value &value, std::int64_t modulus) {
  if (modulus == 0)
    return opaqueJoin({&value});
  if (auto c = value.poly.constantValue())
    return constant(*c % modulus);
  const Variance variance = varianceOf(value);
  if (variance == Variance::LaneVarying) {
    // tid % 32 keeps the lane: within a warp it is tid minus a warp-uniform base.
    auto laneCoefficient = value.poly.derivative(lane_);
    if (laneCoefficient && laneCoefficient->constantValue() && *laneCoefficient->constantValue() != 0) {
      const std::int64_t c = *laneCoefficient->constantValue();
      const Polynomial rest = value.poly.without(lane_);
      if (modulus % (32 * std::llabs(c)) == 0 && keepsLaneAlignment(rest, modulus)) {
        Value result;
        result.poly = Polynomial::symbol(lane_, c) + opaque(Variance::WarpUniform).poly;
        return result;
      }
    }
    if (auto inGroup = splitLanes(value, modulus, true))
      return *inGroup;
  }
  return opaque(variance, memoryOf(value), paramOf(value), "?", groupLanesOf(value));
}

Value KernelWalker::integerArithmetic(BinaryOperatorKind op, const Value &left, const Value &right) {
  Value result;
  const auto rightConstant = right.poly.constantValue();
  switch (op) {
  case BO_Add:
    result.poly = left.poly + right.poly;
    break;
  case BO_Sub:
    result.poly = left.poly - right.poly;
    break;
  case BO_Mul:
    result.poly = left.poly * right.poly;
    break;
  case BO_Div:
    // By a runtime value the quotient stays opaque: `idx / C` is warp-uniform
    // only when C is a multiple of 32, and a kernel can be launched with C = 1
    // to pass a stride-64 walk (`in[(i / C) * 64 + i % C]`) for a coalesced one.
    return rightConstant ? divideByConstant(left, *rightConstant) : opaqueJoin({&left, &right});
  case BO_Rem:
    return rightConstant ? moduloConstant(left, *rightConstant) : opaqueJoin({&left, &right});
  case BO_Shl:
    if (rightConstant && *rightConstant >= 0 && *rightConstant < 62) {
      result.poly = left.poly.scaled(std::int64_t{1} << *rightConstant);
      break;
    }
    return opaqueJoin({&left, &right});
  case BO_Shr:
    if (rightConstant && *rightConstant >= 0 && *rightConstant < 62)
      return divideByConstant(left, std::int64_t{1} << *rightConstant);
    return opaqueJoin({&left, &right});
  case BO_And:
    if (rightConstant && *rightConstant > 0 && ((*rightConstant + 1) & *rightConstant) == 0)
      return moduloConstant(left, *rightConstant + 1);
    return opaqueJoin({&left, &right});
  default:
    return opaqueJoin({&left, &right});
  }
  return normalized(result);
}

bool KernelWalker::isArithmetic(BinaryOperatorKind op) const {
  return BinaryOperator::isAdditiveOp(op) || BinaryOperator::isMultiplicativeOp(op) || BinaryOperator::isShiftOp(op) ||
         BinaryOperator::isBitwiseOp(op);
}

Value KernelWalker::arithmetic(BinaryOperatorKind op, const Value &left, const Value &right, QualType leftType,
                               QualType rightType, QualType resultType) {
  if (isArithmetic(op) && (isFloatingLike(resultType) || memoryOf(left) || memoryOf(right)))
    countOps(1, resultType);
  if (left.isPointer && !right.isPointer && (op == BO_Add || op == BO_Sub) && leftType->isPointerType())
    return pointerStep(left, right, leftType, op == BO_Add ? 1 : -1);
  if (right.isPointer && !left.isPointer && op == BO_Add && rightType->isPointerType())
    return pointerStep(right, left, rightType, 1);
  if (resultType->isIntegralOrEnumerationType() && !resultType->isBooleanType() && !left.isPointer && !right.isPointer)
    return integerArithmetic(op, left, right);
  return opaqueJoin({&left, &right});
}

Value KernelWalker::evalBinary(const BinaryOperator *op) {
  if (op->isAssignmentOp())
    return evalAssign(op);
  const auto code = op->getOpcode();
  if (code == BO_Comma) {
    eval(op->getLHS());
    return eval(op->getRHS());
  }
  Value left = eval(op->getLHS());
  Value right = eval(op->getRHS());
  if (op->isComparisonOp() || op->isLogicalOp())
    return opaqueJoin({&left, &right});
  return arithmetic(code, left, right, op->getLHS()->getType(), op->getRHS()->getType(), op->getType());
}

Value KernelWalker::evalAssign(const BinaryOperator *op) {
  const Expr *lhs = stripNoOps(op->getLHS());
  const auto code = op->getOpcode();
  const bool compound = code != BO_Assign;
  const BinaryOperatorKind arithmeticCode = compound ? BinaryOperator::getOpForCompoundAssignment(code) : BO_Assign;
  Value rhs = eval(op->getRHS());
  if (const auto *var = referencedVar(lhs); var && env_.count(var) && !env_[var].isReference) {
    Value updated = rhs;
    if (compound)
      updated = arithmetic(arithmeticCode, env_[var], rhs, lhs->getType(), op->getRHS()->getType(), lhs->getType());
    env_[var] = updated;
    return updated;
  }
  if (auto address = this->address(lhs)) {
    if (compound) {
      recordAccess(lhs, *address, AccessKind::Load);
      countOps(1, lhs->getType());
    }
    recordAccess(lhs, *address, AccessKind::Store);
    return rhs;
  }
  // A member of a register struct: the struct now varies like what was stored.
  if (const auto *member = dyn_cast<MemberExpr>(lhs))
    if (const auto *var = referencedVar(member->getBase()); var && env_.count(var)) {
      Value before = env_[var];
      env_[var] = before.isPointer ? before : opaqueJoin({&before, &rhs});
    }
  if (compound)
    countOps(1, lhs->getType());
  return rhs;
}

Value KernelWalker::evalUnary(const UnaryOperator *op) {
  const Expr *sub = op->getSubExpr();
  switch (op->getOpcode()) {
  case UO_AddrOf:
    if (auto address = this->address(sub))
      return address->pointer;
    return evalChildren(op);
  case UO_Deref: {
    if (auto address = this->address(op)) {
      Value reference = address->pointer;
      reference.isPointer = false;
      reference.isReference = true;
      return reference;
    }
    return opaque(Variance::LaneVarying);
  }
  case UO_PreInc:
  case UO_PostInc:
  case UO_PreDec:
  case UO_PostDec: {
    const int sign = op->isIncrementOp() ? 1 : -1;
    if (const auto *var = referencedVar(sub); var && env_.count(var) && !env_[var].isReference) {
      Value before = env_[var];
      Value after = before.isPointer && sub->getType()->isPointerType()
                        ? pointerStep(before, constant(1), sub->getType(), sign)
                        : integerArithmetic(BO_Add, before, constant(sign));
      if (isFloatingLike(sub->getType()))
        after = opaqueJoin({&before});
      env_[var] = after;
      return op->isPrefix() ? after : before;
    }
    if (auto address = this->address(sub)) {
      recordAccess(sub, *address, AccessKind::Load);
      recordAccess(sub, *address, AccessKind::Store);
      return loadResult(*address, sub->getType(), address->pointer.baseName);
    }
    return evalChildren(op);
  }
  case UO_Minus: {
    Value value = eval(sub);
    if (isFloatingLike(op->getType())) {
      countOps(1, op->getType());
      return opaqueJoin({&value});
    }
    if (!value.isPointer && op->getType()->isIntegralOrEnumerationType()) {
      value.poly = -value.poly;
      return value;
    }
    return opaqueJoin({&value});
  }
  case UO_Plus:
  case UO_Extension:
    return eval(sub);
  default: {
    Value value = eval(sub);
    return opaqueJoin({&value});
  }
  }
}

Value KernelWalker::evalConditional(const AbstractConditionalOperator *conditional) {
  Value condition = eval(conditional->getCond());
  const Variance control =
      recordBranch(conditional->getQuestionLoc(), BranchKind::Conditional, conditional->getCond(), condition);
  control_.emplace_back(control, conditional->getCond()->getBeginLoc());
  Env before = env_;
  Value whenTrue = eval(conditional->getTrueExpr());
  Env afterTrue = env_;
  env_ = before;
  Value whenFalse = eval(conditional->getFalseExpr());
  env_ = merge(afterTrue, env_, control);
  control_.pop_back();
  if (whenTrue.sameAs(whenFalse))
    return whenTrue;
  if (whenTrue.isPointer && whenFalse.isPointer && whenTrue.base == whenFalse.base) {
    Value pointer = whenTrue;
    pointer.poly = opaqueJoin({&whenTrue, &whenFalse}, control).poly;
    return pointer;
  }
  return opaqueJoin({&whenTrue, &whenFalse}, control);
}

Value KernelWalker::evalConstruct(const CXXConstructExpr *construct) {
  const CXXConstructorDecl *constructor = construct->getConstructor();
  if (construct->getNumArgs() == 1 && constructor && constructor->isCopyOrMoveConstructor()) {
    const Expr *source = construct->getArg(0);
    if (auto address = this->address(source)) {
      Address whole = *address;
      whole.type = construct->getType();
      return load(source, whole, construct->getType());
    }
    return eval(source);
  }
  return evalChildren(construct);
}

Value KernelWalker::evalOperatorCall(const CXXOperatorCallExpr *call) {
  const auto op = call->getOperator();
  if (call->isAssignmentOp() && call->getNumArgs() == 2) {
    const Expr *lhs = call->getArg(0);
    // A struct copied from memory (out4[i] = in4[i]) is read whole.
    const Expr *source = call->getArg(1);
    std::optional<Address> sourceAddress;
    if (source->isGLValue() && source->getType()->isRecordType())
      sourceAddress = address(source);
    Value rhs = sourceAddress ? load(source, *sourceAddress, source->getType()) : eval(source);
    if (auto address = this->address(lhs)) {
      if (op != OO_Equal) {
        recordAccess(lhs, *address, AccessKind::Load);
        countOps(1, lhs->getType());
      }
      recordAccess(lhs, *address, AccessKind::Store);
      return rhs;
    }
    if (const auto *var = referencedVar(lhs); var && env_.count(var)) {
      Value before = env_[var];
      env_[var] = op == OO_Equal ? rhs : opaqueJoin({&before, &rhs});
      if (op != OO_Equal)
        countOps(1, lhs->getType());
    }
    return rhs;
  }
  // An operator the file defines (a lambda's call, a functor's, `Row * s`,
  // an accessor's `operator()`) is walked like a helper: what its body reads
  // is the kernel's reads.
  if (const FunctionDecl *callee = call->getDirectCallee();
      callee && !isToolchainFunction(callee) && callee->hasBody() && isInlinable(callee))
    return inlineCall(callee, call);
  // An operator of value types (bf16's `a[i] + b[i]`, whose operands bind to
  // `const __nv_bfloat16 &`) reads each operand that lives in memory whole.
  Value result;
  bool readsMemory = false;
  if (op != OO_Subscript && op != OO_Arrow && op != OO_Call && op != OO_Amp) {
    std::vector<Value> operands;
    for (const Expr *arg : call->arguments()) {
      std::optional<Address> operand;
      if (arg->isGLValue() && isSmallValueType(arg->getType()))
        operand = address(arg);
      if (operand) {
        Address whole = *operand;
        whole.type = arg->getType();
        operands.push_back(load(arg, whole, arg->getType()));
        readsMemory = true;
      } else {
        operands.push_back(eval(arg));
      }
    }
    if (readsMemory) {
      Variance variance = Variance::Uniform;
      unsigned lanes = 32;
      for (const Value &operand : operands) {
        variance = join(variance, varianceOf(operand));
        lanes = std::min(lanes, groupLanesOf(operand));
      }
      result = opaque(variance, true, false, "?", lanes);
    }
  }
  if (!readsMemory)
    result = evalChildren(call);
  switch (op) {
  case OO_Plus:
  case OO_Minus:
  case OO_Star:
  case OO_Slash:
    if (isFloatingLike(call->getType()) || memoryOf(result))
      countOps(1, call->getType());
    break;
  default:
    break;
  }
  return result;
}

} // namespace cudaperf::analysis
