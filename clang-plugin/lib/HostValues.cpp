#include "HostValues.h"

#include "AnalysisContext.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

namespace cudaperf::analysis {

using namespace clang;

namespace {

constexpr int kMaxDepth = 12;            // nested initialisers, helpers and operands before giving up
constexpr int kMaxStatementDepth = 2000; // statement nesting read before a body is given up (the stack)

// CUDA's own dim3 (vector_types.h): the global struct of that name from a system header, not a class of the
// file's own that is named dim3 in a namespace, nor one derived from it, whose constructor may do anything.
bool isCudaDim3(const ASTContext &ast, const CXXRecordDecl *record) {
  return record && record->getName() == "dim3" && record->getDeclContext()->getRedeclContext()->isTranslationUnit() &&
         ast.getSourceManager().isInSystemHeader(record->getLocation());
}

// Strips what does not change which object an expression names: parentheses, no-op casts (to const).
const Expr *bare(const Expr *expr) {
  while (true) {
    expr = expr->IgnoreParens();
    const auto *cast = dyn_cast<ImplicitCastExpr>(expr);
    if (!cast || cast->getCastKind() != CK_NoOp)
      return expr;
    expr = cast->getSubExpr();
  }
}

// Which variables a body may change after their initialisation. The rule is
// stated by what is allowed, not by what writes: a use of a variable is a
// read when it is converted to a value, bound to a const reference
// parameter, or the object of a member read (`grid.x`); any other use
// (assigned, incremented, its address taken, bound to a reference, captured
// by reference, the object of a method call) counts as a write, so aliases
// no list of writes foresees are covered.
class WriteScan {
public:
  WriteScan(std::set<const VarDecl *> &written, HostValues &values) : written_(written), values_(values) {}

  void visit(const Stmt *stmt, const Stmt *parent, int depth) {
    if (!stmt)
      return;
    if (depth > kMaxStatementDepth) {
      everything_ = true; // too deep to read: nothing in this body is trusted
      return;
    }
    if (isa<ParenExpr>(stmt)) {
      visit(*stmt->child_begin(), parent, depth + 1);
      return;
    }
    if (const auto *cast = dyn_cast<ImplicitCastExpr>(stmt); cast && cast->getCastKind() == CK_NoOp) {
      visit(cast->getSubExpr(), parent, depth + 1);
      return;
    }
    if (const auto *member = dyn_cast<MemberExpr>(stmt); member && !member->isArrow()) {
      visit(member->getBase(), isValueRead(parent) ? parent : stmt, depth + 1);
      return;
    }
    if (const auto *ref = dyn_cast<DeclRefExpr>(stmt)) {
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && !isRead(ref, parent))
        written_.insert(var);
      return;
    }
    for (const Stmt *child : stmt->children())
      visit(child, stmt, depth + 1);
  }
  bool everything() const { return everything_; }

private:
  static bool isValueRead(const Stmt *parent) {
    const auto *cast = dyn_cast_or_null<ImplicitCastExpr>(parent);
    return cast && cast->getCastKind() == CK_LValueToRValue;
  }
  // Bound to a const reference parameter: a read, unless the callee is of this file and may write through
  // it anyway (const_cast); a callee without a body here (the runtime, the standard library) is trusted.
  bool readThrough(const FunctionDecl *callee, const ParmVarDecl *parameter) {
    if (!bindsConstReference(parameter))
      return false;
    const FunctionDecl *definition = callee ? callee->getDefinition() : nullptr;
    if (!definition || definition->getASTContext().getSourceManager().isInSystemHeader(definition->getLocation()))
      return true;
    return !values_.writes(definition, definition->getParamDecl(parameter->getFunctionScopeIndex()));
  }
  bool isRead(const DeclRefExpr *ref, const Stmt *parent) {
    if (isValueRead(parent) || isa_and_nonnull<UnaryExprOrTypeTraitExpr>(parent))
      return true;
    if (const auto *call = dyn_cast_or_null<CallExpr>(parent)) {
      for (unsigned i = 0; i < call->getNumArgs(); ++i)
        if (bare(call->getArg(i)) == ref)
          return readThrough(call->getDirectCallee(), boundParameter(call, i));
      return false;
    }
    if (const auto *construct = dyn_cast_or_null<CXXConstructExpr>(parent)) {
      const CXXConstructorDecl *constructor = construct->getConstructor();
      for (unsigned i = 0; constructor && i < construct->getNumArgs() && i < constructor->getNumParams(); ++i)
        if (bare(construct->getArg(i)) == ref)
          return readThrough(constructor, constructor->getParamDecl(i));
    }
    return false;
  }

  std::set<const VarDecl *> &written_;
  HostValues &values_;
  bool everything_ = false;
};

std::optional<std::int64_t> arithmetic(BinaryOperatorKind op, std::int64_t left, std::int64_t right) {
  std::int64_t out = 0;
  switch (op) {
  case BO_Add:
    return __builtin_add_overflow(left, right, &out) ? std::nullopt : std::optional<std::int64_t>(out);
  case BO_Sub:
    return __builtin_sub_overflow(left, right, &out) ? std::nullopt : std::optional<std::int64_t>(out);
  case BO_Mul:
    return __builtin_mul_overflow(left, right, &out) ? std::nullopt : std::optional<std::int64_t>(out);
  case BO_Div:
    return right != 0 && !(left == INT64_MIN && right == -1) ? std::optional<std::int64_t>(left / right) : std::nullopt;
  case BO_Rem:
    return right != 0 && !(left == INT64_MIN && right == -1) ? std::optional<std::int64_t>(left % right) : std::nullopt;
  case BO_Shl:
    return right >= 0 && right < 62 && left >= 0 && left <= (INT64_MAX >> right)
               ? std::optional<std::int64_t>(left << right)
               : std::nullopt;
  case BO_Shr:
    return right >= 0 && right < 64 ? std::optional<std::int64_t>(left >> right) : std::nullopt;
  case BO_And:
    return left & right;
  case BO_Or:
    return left | right;
  case BO_Xor:
    return left ^ right;
  case BO_LT:
    return left < right;
  case BO_GT:
    return left > right;
  case BO_LE:
    return left <= right;
  case BO_GE:
    return left >= right;
  case BO_EQ:
    return left == right;
  case BO_NE:
    return left != right;
  case BO_LAnd:
    return left && right;
  case BO_LOr:
    return left || right;
  default:
    return std::nullopt;
  }
}

// The value an integer of `type` holds (a cast to int of a 2^33 count wraps as it would at run time).
std::optional<std::int64_t> fitTo(const ASTContext &ast, QualType type, std::int64_t value) {
  if (type.isNull() || !type->isIntegralOrEnumerationType())
    return std::nullopt;
  if (type->isBooleanType())
    return std::int64_t{value != 0};
  const uint64_t bits = ast.getIntWidth(type); // the value's bits (_BitInt(20): 20), not its storage
  if (bits >= 64 || bits == 0)                 // an unsigned 64-bit value past INT64_MAX is not held: unknown
    return type->isUnsignedIntegerOrEnumerationType() && value < 0 ? std::nullopt : std::optional<std::int64_t>(value);
  const bool isSigned = type->isSignedIntegerOrEnumerationType();
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t raw = static_cast<std::uint64_t>(value) & mask;
  if (isSigned && (raw >> (bits - 1)))
    return static_cast<std::int64_t>(raw | ~mask);
  return static_cast<std::int64_t>(raw);
}

// The one expression a helper returns: `{ return (a + b - 1) / b; }`.
const Expr *singleReturn(const FunctionDecl *callee) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(callee->getBody());
  if (!body || body->size() != 1)
    return nullptr;
  const auto *ret = dyn_cast<ReturnStmt>(body->body_front());
  return ret ? ret->getRetValue() : nullptr;
}

} // namespace

bool bindsConstReference(const ParmVarDecl *parameter) {
  return parameter && parameter->getType()->isReferenceType() &&
         parameter->getType().getNonReferenceType().isConstQualified();
}

const FunctionDecl *launchedKernel(const CUDAKernelCallExpr *launch) {
  if (const FunctionDecl *kernel = launch->getDirectCallee())
    return kernel;
  const auto *ref = dyn_cast<DeclRefExpr>(launch->getCallee()->IgnoreImplicit());
  return ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
}

const ParmVarDecl *boundParameter(const CallExpr *call, unsigned argument) {
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee)
    return nullptr;
  // A member operator's object is argument 0 (`grid = wide` calls grid.operator=(wide)).
  const auto *method = dyn_cast<CXXMethodDecl>(callee);
  const unsigned shift = isa<CXXOperatorCallExpr>(call) && method && method->isInstance() ? 1 : 0;
  if (argument < shift || argument - shift >= callee->getNumParams())
    return nullptr;
  return callee->getParamDecl(argument - shift);
}

std::optional<std::int64_t> HostValues::asType(const ASTContext &ast, QualType type, std::int64_t value) {
  return fitTo(ast, type, value);
}

bool HostValues::writes(const FunctionDecl *function, const VarDecl *var) {
  if (!function)
    return true;
  auto found = written_.find(function);
  if (found == written_.end()) {
    // Recursion through const-reference callees meets this placeholder: everything may be written.
    written_[function].everything = true;
    Writes writes;
    WriteScan scan(writes.variables, *this);
    scan.visit(function->getBody(), nullptr, 0);
    writes.everything = scan.everything();
    found = written_.insert_or_assign(function, std::move(writes)).first;
  }
  return found->second.everything || found->second.variables.count(var) > 0;
}

std::optional<std::int64_t> HostValues::variable(const VarDecl *var, const FunctionDecl *function,
                                                 const Bindings &bindings, int depth) {
  // Integers only: a pointer bound as kNonNullPointer has no value to compute with (nonNull reads it).
  if (var->getType().isNull() || !var->getType()->isIntegralOrEnumerationType() || writes(function, var))
    return std::nullopt;
  if (auto bound = bindings.find(var); bound != bindings.end())
    return bound->second;
  if (isa<ParmVarDecl>(var) || !var->hasInit() || !trustedAtInit(var))
    return std::nullopt;
  return integer(var->getInit(), function, bindings, depth + 1);
}

std::optional<std::int64_t> HostValues::call(const CallExpr *callExpr, const FunctionDecl *function,
                                             const Bindings &bindings, int depth) {
  const FunctionDecl *callee = callExpr->getDirectCallee();
  if (!callee || !callee->getDeclName().isIdentifier())
    return std::nullopt;
  if (const auto *method = dyn_cast<CXXMethodDecl>(callee); method && method->isVirtual())
    return std::nullopt; // an override may run instead
  const llvm::StringRef name = callee->getName();
  const unsigned count = callExpr->getNumArgs();
  // CUDA's and the standard library's min/max; a file's own function of that name is only a helper.
  const FunctionDecl *ownDefinition = callee->getDefinition();
  const bool library = !ownDefinition || ast_.getSourceManager().isInSystemHeader(ownDefinition->getLocation());
  if (library &&
      (name == "min" || name == "max" || name == "umin" || name == "umax" || name == "llmin" || name == "llmax") &&
      count == 2) {
    const auto left = integer(callExpr->getArg(0), function, bindings, depth + 1);
    const auto right = integer(callExpr->getArg(1), function, bindings, depth + 1);
    if (!left || !right)
      return std::nullopt;
    return fitTo(ast_, callExpr->getType(), name.ends_with("min") ? std::min(*left, *right) : std::max(*left, *right));
  }
  // A helper of one return statement, its parameters bound to the call's values.
  const FunctionDecl *definition = callee->getDefinition();
  const Expr *returned = definition ? singleReturn(definition) : nullptr;
  if (!returned)
    return std::nullopt;
  Bindings inner;
  for (unsigned i = 0; i < count; ++i) {
    const ParmVarDecl *parameter = boundParameter(callExpr, i);
    const Expr *argument = callExpr->getArg(i);
    if (const auto *defaulted = dyn_cast<CXXDefaultArgExpr>(argument))
      argument = defaulted->getExpr();
    if (!parameter || (parameter->getType()->isReferenceType() && !bindsConstReference(parameter)))
      continue; // the object, or a reference the helper may write through
    if (auto value = integer(argument, function, bindings, depth + 1))
      inner[definition->getParamDecl(parameter->getFunctionScopeIndex())] = *value;
  }
  const auto value = integer(returned, definition, inner, depth + 1);
  return value ? fitTo(ast_, callExpr->getType(), *value) : std::nullopt;
}

std::optional<bool> HostValues::nonNull(const Expr *expr, const FunctionDecl *function, const Bindings &bindings,
                                        int depth) {
  if (!expr || depth > kMaxDepth || ++steps_ > kMaxSteps)
    return std::nullopt;
  const Expr *stripped = expr->IgnoreParenImpCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(stripped);
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || var->getType().isNull() || !var->getType()->isPointerType() || writes(function, var))
    return std::nullopt;
  if (auto bound = bindings.find(var); bound != bindings.end())
    return bound->second == kNonNullPointer ? std::optional<bool>(true) : std::nullopt;
  if (isa<ParmVarDecl>(var) || !var->hasInit() || !trustedAtInit(var))
    return std::nullopt;
  return nonNull(var->getInit(), function, bindings, depth + 1); // `const float *p = x;`
}

// A local (not static: its initialiser ran once, at the first call, with that call's values) or a
// constant; a mutable global may be written by any function (constants were evaluated before this).
bool HostValues::trustedAtInit(const VarDecl *var) {
  return var->getType().isConstQualified() ? !var->isStaticLocal() || var->isConstexpr()
                                           : var->isLocalVarDecl() && !var->isStaticLocal();
}

std::optional<std::int64_t> HostValues::integer(const Expr *expr, const FunctionDecl *function,
                                                const Bindings &bindings, int depth) {
  if (++steps_ > kMaxSteps)
    return std::nullopt;
  if (!expr || depth > kMaxDepth || expr->getType().isNull() || expr->isValueDependent() || expr->isTypeDependent() ||
      expr->containsErrors())
    return std::nullopt;
  if (expr->getType()->isIntegralOrEnumerationType()) {
    Expr::EvalResult result;
    if (expr->EvaluateAsInt(result, ast_, Expr::SE_NoSideEffects) && result.Val.getInt().isRepresentableByInt64())
      return result.Val.getInt().getExtValue();
  }
  const Expr *stripped = expr->IgnoreParens();
  if (const auto *cast = dyn_cast<CastExpr>(stripped)) {
    const Expr *operand = cast->getSubExpr();
    // `if (p)`, `!p`, `p && ...`: a pointer known not to be null is true.
    if (cast->getCastKind() == CK_PointerToBoolean)
      return nonNull(operand, function, bindings, depth + 1) ? std::optional<std::int64_t>(1) : std::nullopt;
    // Integer to integer (implicit, C-style, static_cast, functional): the value as the target type holds it.
    if (operand->getType().isNull() || !operand->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    const auto value = integer(operand, function, bindings, depth + 1);
    if (!value)
      return std::nullopt;
    return cast->getType()->isIntegralOrEnumerationType() ? fitTo(ast_, cast->getType(), *value) : std::nullopt;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(stripped)) {
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      return variable(var, function, bindings, depth);
    return std::nullopt;
  }
  if (const auto *op = dyn_cast<BinaryOperator>(stripped)) {
    if (op->isAssignmentOp() || op->getOpcode() == BO_Comma)
      return std::nullopt;
    // `p == nullptr`, `p != NULL`, `0 == p`: a pointer known not to be null is not equal to null.
    if (op->getOpcode() == BO_EQ || op->getOpcode() == BO_NE)
      for (const auto &[pointer, null] : {std::pair{op->getLHS(), op->getRHS()}, std::pair{op->getRHS(), op->getLHS()}})
        if (null->isNullPointerConstant(ast_, Expr::NPC_ValueDependentIsNotNull) &&
            pointer->getType()->isPointerType() && nonNull(pointer, function, bindings, depth + 1))
          return std::int64_t{op->getOpcode() == BO_NE};
    const auto left = integer(op->getLHS(), function, bindings, depth + 1);
    // C++ does not evaluate the right side of `false && ...` or `true || ...`: decided by the left alone.
    if (left && ((op->getOpcode() == BO_LAnd && *left == 0) || (op->getOpcode() == BO_LOr && *left != 0)))
      return std::int64_t{op->getOpcode() == BO_LOr};
    const auto right = integer(op->getRHS(), function, bindings, depth + 1);
    if (!left || !right)
      return std::nullopt;
    // A shift by the operand's width or more is undefined: the hardware masks the count, C++ promises nothing.
    if ((op->getOpcode() == BO_Shl || op->getOpcode() == BO_Shr) &&
        (*right < 0 || static_cast<std::uint64_t>(*right) >= ast_.getIntWidth(op->getLHS()->getType())))
      return std::nullopt;
    const auto value = arithmetic(op->getOpcode(), *left, *right);
    if (!value)
      return std::nullopt;
    const auto held = fitTo(ast_, op->getType(), *value);
    // Signed overflow is undefined (the compiler may fold `n * 4096 / 4096` to n): unknown, not wrapped.
    if (held && *held != *value && op->getType()->isSignedIntegerOrEnumerationType())
      return std::nullopt;
    return held;
  }
  if (const auto *op = dyn_cast<UnaryOperator>(stripped)) {
    const auto value = integer(op->getSubExpr(), function, bindings, depth + 1);
    if (!value)
      return std::nullopt;
    switch (op->getOpcode()) {
    case UO_Minus:
      return *value == INT64_MIN ? std::nullopt : fitTo(ast_, op->getType(), -*value);
    case UO_Plus:
      return value;
    case UO_Not:
      return fitTo(ast_, op->getType(), ~*value);
    case UO_LNot:
      return std::int64_t{!*value};
    default:
      return std::nullopt;
    }
  }
  if (isa<CXXDefaultArgExpr>(stripped))
    return integer(cast<CXXDefaultArgExpr>(stripped)->getExpr(), function, bindings, depth + 1);
  if (const auto *choice = dyn_cast<ConditionalOperator>(stripped)) {
    const auto condition = integer(choice->getCond(), function, bindings, depth + 1);
    if (!condition)
      return std::nullopt;
    return integer(*condition ? choice->getTrueExpr() : choice->getFalseExpr(), function, bindings, depth + 1);
  }
  if (const auto *callExpr = dyn_cast<CallExpr>(stripped); callExpr && !isa<CUDAKernelCallExpr>(callExpr))
    return call(callExpr, function, bindings, depth);
  return std::nullopt;
}

Dim3 HostValues::dim3(const Expr *expr, const FunctionDecl *function, const Bindings &bindings, int depth) {
  Dim3 dim;
  if (!expr)
    return dim;
  dim.expression = sourceText(ast_, expr->getSourceRange());
  if (depth > kMaxDepth)
    return dim;
  const Expr *stripped = expr->IgnoreImplicit()->IgnoreParens();
  if (const auto *temp = dyn_cast<MaterializeTemporaryExpr>(stripped))
    stripped = temp->getSubExpr()->IgnoreImplicit();
  if (const auto *functional = dyn_cast<CXXFunctionalCastExpr>(stripped);
      functional && !functional->getType().isNull() && !functional->getType()->isIntegralOrEnumerationType())
    stripped = functional->getSubExpr()->IgnoreImplicit(); // dim3{...} spelled as a cast
  if (const auto *construct = dyn_cast<CXXConstructExpr>(stripped)) {
    const auto *constructor = construct->getConstructor();
    if (!constructor || !isCudaDim3(ast_, constructor->getParent()))
      return dim; // a class of the file's own (named dim3 or derived from it), whatever it does with the numbers
    if (constructor && constructor->isCopyOrMoveConstructor() && construct->getNumArgs() == 1) {
      Dim3 inner = dim3(construct->getArg(0), function, bindings, depth + 1);
      inner.expression = dim.expression;
      return inner;
    }
    std::optional<std::int64_t> values[3] = {1, 1, 1};
    for (unsigned i = 0; i < construct->getNumArgs() && i < 3; ++i) {
      const Expr *arg = construct->getArg(i);
      if (const auto *defaultArg = dyn_cast<CXXDefaultArgExpr>(arg))
        arg = defaultArg->getExpr();
      values[i] = integer(arg, function, bindings, depth + 1);
    }
    dim.x = values[0];
    dim.y = values[1];
    dim.z = values[2];
    return dim;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(stripped))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      if (var->hasInit() && !isa<ParmVarDecl>(var) && trustedAtInit(var) && !writes(function, var)) {
        Dim3 inner = dim3(var->getInit(), function, bindings, depth + 1);
        inner.expression = dim.expression;
        return inner;
      }
  if (!stripped->getType().isNull() && stripped->getType()->isIntegralOrEnumerationType()) {
    dim.x = integer(stripped, function, bindings, depth + 1);
    dim.y = 1;
    dim.z = 1;
  }
  return dim;
}

} // namespace cudaperf::analysis
