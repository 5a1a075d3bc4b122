#include "HostValues.h"

#include "AnalysisContext.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

namespace cudaperf::analysis {

using namespace clang;

namespace {

constexpr int kMaxDepth = 12; // nested initialisers, helpers and operands before giving up

void collectWrites(const Stmt *stmt, std::set<const VarDecl *> &written) {
  if (!stmt)
    return;
  auto note = [&](const Expr *expr) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(expr->IgnoreParenImpCasts()))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        written.insert(var);
  };
  if (const auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp())
    note(op->getLHS());
  if (const auto *op = dyn_cast<UnaryOperator>(stmt);
      op && (op->isIncrementDecrementOp() || op->getOpcode() == UO_AddrOf))
    note(op->getSubExpr());
  if (const auto *member = dyn_cast<MemberExpr>(stmt); member && !member->isArrow())
    note(member->getBase()); // `block.x = 128` changes a dim3 local after its initialisation
  if (const auto *declaration = dyn_cast<DeclStmt>(stmt)) {
    // `int &alias = blocks; alias = 1;`: a non-const reference may write what it binds.
    for (const Decl *decl : declaration->decls())
      if (const auto *var = dyn_cast<VarDecl>(decl); var && var->hasInit() && var->getType()->isReferenceType() &&
                                                     !var->getType().getNonReferenceType().isConstQualified())
        note(var->getInit());
  }
  if (const auto *call = dyn_cast<CallExpr>(stmt)) {
    // Passed by non-const reference: the callee may write it (`cudaOccupancy...(&grid, ...)` is the & above).
    const FunctionDecl *callee = call->getDirectCallee();
    for (unsigned i = 0; callee && i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
      const QualType type = callee->getParamDecl(i)->getType();
      if (type->isReferenceType() && !type.getNonReferenceType().isConstQualified())
        note(call->getArg(i));
    }
  }
  for (const Stmt *child : stmt->children())
    collectWrites(child, written);
}

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
  const uint64_t bits = ast.getTypeSize(type);
  if (bits >= 64 || bits == 0)
    return value;
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

bool HostValues::writes(const FunctionDecl *function, const VarDecl *var) {
  if (!function)
    return false;
  auto found = written_.find(function);
  if (found == written_.end()) {
    found = written_.emplace(function, std::set<const VarDecl *>{}).first;
    collectWrites(function->getBody(), found->second);
  }
  return found->second.count(var) > 0;
}

std::optional<std::int64_t> HostValues::variable(const VarDecl *var, const FunctionDecl *function,
                                                 const Bindings &bindings, int depth) {
  if (writes(function, var))
    return std::nullopt;
  if (auto bound = bindings.find(var); bound != bindings.end())
    return bound->second;
  if (isa<ParmVarDecl>(var) || !var->hasInit())
    return std::nullopt;
  // A mutable global may be written by any function (constants were evaluated above).
  if (!var->isLocalVarDecl() && !var->getType().isConstQualified())
    return std::nullopt;
  return integer(var->getInit(), function, bindings, depth + 1);
}

std::optional<std::int64_t> HostValues::call(const CallExpr *callExpr, const FunctionDecl *function,
                                             const Bindings &bindings, int depth) {
  const FunctionDecl *callee = callExpr->getDirectCallee();
  if (!callee || !callee->getDeclName().isIdentifier())
    return std::nullopt;
  const llvm::StringRef name = callee->getName();
  const unsigned count = callExpr->getNumArgs();
  if ((name == "min" || name == "max" || name == "umin" || name == "umax" || name == "llmin" || name == "llmax") &&
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
  if (!returned || count != definition->getNumParams())
    return std::nullopt;
  Bindings inner;
  for (unsigned i = 0; i < count; ++i) {
    const Expr *argument = callExpr->getArg(i);
    if (const auto *defaulted = dyn_cast<CXXDefaultArgExpr>(argument))
      argument = defaulted->getExpr();
    if (auto value = integer(argument, function, bindings, depth + 1))
      inner[definition->getParamDecl(i)] = *value;
  }
  const auto value = integer(returned, definition, inner, depth + 1);
  return value ? fitTo(ast_, callExpr->getType(), *value) : std::nullopt;
}

std::optional<std::int64_t> HostValues::integer(const Expr *expr, const FunctionDecl *function,
                                                const Bindings &bindings, int depth) {
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
    // Integer to integer (implicit, C-style, static_cast, functional): the value as the target type holds it.
    const Expr *operand = cast->getSubExpr();
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
    const auto left = integer(op->getLHS(), function, bindings, depth + 1);
    const auto right = integer(op->getRHS(), function, bindings, depth + 1);
    if (!left || !right)
      return std::nullopt;
    const auto value = arithmetic(op->getOpcode(), *left, *right);
    return value ? fitTo(ast_, op->getType(), *value) : std::nullopt;
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
      if (var->hasInit() && !writes(function, var) && !isa<ParmVarDecl>(var)) {
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
