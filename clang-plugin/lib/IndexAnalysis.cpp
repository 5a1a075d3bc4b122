#include "IndexAnalysis.h"

#include "AnalysisContext.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecordLayout.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

namespace cudaperf::analysis {

using namespace clang;

namespace {

// Work limit per kernel: LLM-written or fuzzed code must not make the analysis
// explode (nested loops re-walk their bodies to find loop-carried values).
constexpr unsigned kMaxSteps = 400000;
constexpr int kMaxInlineDepth = 3;

struct Value {
  Polynomial poly;          // integer value, or byte offset for pointers/references
  bool isPointer = false;   // a pointer into memory object `baseName`
  bool isReference = false; // a C++ reference bound to memory: poly is its address
  const ValueDecl *base = nullptr;
  std::string baseName;
  MemorySpace space = MemorySpace::Global;
  bool constantSpace = false;

  bool sameAs(const Value &other) const {
    return poly == other.poly && isPointer == other.isPointer && isReference == other.isReference &&
           base == other.base && baseName == other.baseName && space == other.space;
  }
};

using Env = std::map<const VarDecl *, Value>;

struct Address {
  Value pointer;
  QualType type; // the type of the lvalue moved by the access
};

struct Update {
  const Expr *step = nullptr; // nullptr with sign: ++/--
  int sign = 1;
};

struct UpdateSet {
  std::vector<Update> updates;
  bool nonAdditive = false;
};

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

const char *kDimNames = "xyz";

} // namespace

class KernelWalker {
public:
  KernelWalker(ASTContext &ast, SymbolTable &symbols, KernelFacts &facts)
      : ast_(ast), symbols_(symbols), facts_(facts), lane_(symbols.builtin(SymbolKind::ThreadIdx, 0)) {}

  void walkKernel(const FunctionDecl *kernel) {
    callStack_.push_back(kernel);
    for (const ParmVarDecl *param : kernel->parameters())
      bindKernelParam(param);
    walkStmt(kernel->getBody());
    callStack_.pop_back();
    if (steps_ > kMaxSteps)
      budgetExhausted_ = true;
  }

  bool budgetExhausted() const { return budgetExhausted_; }

private:
  ASTContext &ast_;
  SymbolTable &symbols_;
  KernelFacts &facts_;
  const SymbolId lane_;
  Env env_;
  bool recording_ = true;
  int dryDepth_ = 0;
  unsigned loopDepth_ = 0;
  double tripWeight_ = 1;
  std::vector<Variance> control_;
  bool threadDependentExit_ = false;
  std::vector<const FunctionDecl *> callStack_;
  std::vector<Value> *returns_ = nullptr;
  unsigned steps_ = 0;
  bool budgetExhausted_ = false;
  std::set<const VarDecl *> sharedSeen_;

  // ---- values ------------------------------------------------------------

  Value constant(std::int64_t value) {
    Value result;
    result.poly = Polynomial::constant(value);
    return result;
  }

  Value opaque(Variance variance, bool fromMemory = false, bool fromParam = false, const std::string &name = "?") {
    Value result;
    result.poly = Polynomial::symbol(symbols_.opaque(variance, fromMemory, fromParam, name));
    return result;
  }

  Variance varianceOf(const Value &value) const { return value.poly.variance(symbols_); }
  bool memoryOf(const Value &value) const { return value.poly.fromMemory(symbols_); }
  bool paramOf(const Value &value) const { return value.poly.fromParam(symbols_); }

  // An opaque value that varies, and derives from memory/params, like all of `values`.
  Value opaqueJoin(std::initializer_list<const Value *> values, Variance extra = Variance::Uniform) {
    Variance variance = extra;
    bool memory = false, param = false;
    for (const Value *value : values) {
      variance = join(variance, varianceOf(*value));
      memory |= memoryOf(*value);
      param |= paramOf(*value);
    }
    return opaque(variance, memory, param);
  }

  // Keeps a pointer's memory object but forgets its offset (loop-carried pointers).
  Value forgetOffset(const Value &value, Variance extra) {
    Value result = value;
    result.poly = opaqueJoin({&value}, extra).poly;
    return result;
  }

  Value normalized(Value value) {
    if (value.poly.tooLarge())
      value.poly = Polynomial::symbol(symbols_.opaque(varianceOf(value), memoryOf(value), paramOf(value), "large"));
    return value;
  }

  std::optional<std::int64_t> typeSize(QualType type) const {
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

  std::optional<std::int64_t> fieldOffset(const FieldDecl *field) const {
    const RecordDecl *record = field->getParent();
    if (!record || record->isInvalidDecl() || !record->isCompleteDefinition() || record->isDependentType() ||
        field->isBitField())
      return std::nullopt;
    return static_cast<std::int64_t>(ast_.getFieldOffset(field) / 8);
  }

  std::optional<std::int64_t> evaluateInt(const Expr *expr) const {
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

  std::string text(const Stmt *stmt) const { return sourceText(ast_, stmt->getSourceRange()); }

  void bindKernelParam(const ParmVarDecl *param) {
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
  std::optional<SymbolId> builtinIndex(const Expr *expr) const {
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

  // ---- memory ------------------------------------------------------------

  Value memoryObject(const VarDecl *var, MemorySpace space) {
    Value pointer;
    pointer.isPointer = true;
    pointer.base = var;
    pointer.baseName = var->getNameAsString();
    pointer.space = space;
    return pointer;
  }

  void noteSharedDecl(const VarDecl *var) {
    if (!sharedSeen_.insert(var).second || !recording_)
      return;
    SharedDeclFact fact;
    fact.decl = var;
    fact.loc = var->getLocation();
    fact.name = var->getNameAsString();
    fact.type = var->getType().getAsString();
    fact.dynamic = var->getType()->isIncompleteArrayType();
    fact.bytes = fact.dynamic ? 0 : typeSize(var->getType()).value_or(0);
    facts_.sharedDecls.push_back(fact);
  }

  const Expr *stripNoOps(const Expr *expr) const {
    while (true) {
      expr = expr->IgnoreParens();
      if (const auto *cast = dyn_cast<ImplicitCastExpr>(expr); cast && cast->getCastKind() == CK_NoOp) {
        expr = cast->getSubExpr();
        continue;
      }
      if (const auto *temp = dyn_cast<MaterializeTemporaryExpr>(expr)) {
        expr = temp->getSubExpr();
        continue;
      }
      return expr;
    }
  }

  // The memory location an lvalue names, or nullopt for registers (locals).
  std::optional<Address> address(const Expr *lvalue) {
    lvalue = stripNoOps(lvalue);
    if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(lvalue)) {
      Value base = eval(subscript->getBase());
      Value index = eval(subscript->getIdx());
      if (!base.isPointer)
        return std::nullopt;
      const std::int64_t size = typeSize(subscript->getType()).value_or(1);
      if (index.isPointer)
        index = opaqueJoin({&index});
      base.poly = base.poly + index.poly.scaled(size);
      return Address{normalized(base), subscript->getType()};
    }
    if (const auto *unary = dyn_cast<UnaryOperator>(lvalue); unary && unary->getOpcode() == UO_Deref) {
      Value pointer = eval(unary->getSubExpr());
      if (!pointer.isPointer)
        return std::nullopt;
      return Address{pointer, unary->getType()};
    }
    if (const auto *member = dyn_cast<MemberExpr>(lvalue)) {
      if (builtinIndex(member))
        return std::nullopt;
      const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
      if (!field)
        return std::nullopt;
      std::optional<Address> base;
      if (member->isArrow()) {
        Value pointer = eval(member->getBase());
        if (!pointer.isPointer)
          return std::nullopt;
        base = Address{pointer, member->getBase()->getType()->getPointeeType()};
      } else {
        base = address(member->getBase());
      }
      if (!base)
        return std::nullopt;
      if (auto offset = fieldOffset(field))
        base->pointer.poly = base->pointer.poly + Polynomial::constant(*offset);
      else
        base->pointer.poly = base->pointer.poly + opaque(Variance::Uniform).poly;
      base->type = member->getType();
      return base;
    }
    if (const auto *ref = dyn_cast<DeclRefExpr>(lvalue)) {
      const auto *var = dyn_cast<VarDecl>(ref->getDecl());
      if (!var)
        return std::nullopt;
      if (auto it = env_.find(var); it != env_.end()) {
        if (!it->second.isReference)
          return std::nullopt;
        Value pointer = it->second;
        pointer.isReference = false;
        pointer.isPointer = true;
        return Address{pointer, var->getType().getNonReferenceType()};
      }
      if (var->hasAttr<CUDASharedAttr>()) {
        noteSharedDecl(var);
        return Address{memoryObject(var, MemorySpace::Shared), var->getType()};
      }
      if (var->hasAttr<CUDAConstantAttr>()) {
        Value pointer = memoryObject(var, MemorySpace::Global);
        pointer.constantSpace = true;
        return Address{pointer, var->getType()};
      }
      if (var->hasGlobalStorage() && !var->isStaticLocal() &&
          (var->hasAttr<CUDADeviceAttr>() || var->hasAttr<HIPManagedAttr>()))
        return Address{memoryObject(var, MemorySpace::Global), var->getType()};
      if (var->getType()->isArrayType())
        return Address{memoryObject(var, MemorySpace::Local), var->getType()};
      return std::nullopt;
    }
    return std::nullopt;
  }

  void recordAccess(const Expr *site, const Address &address, AccessKind kind, bool readOnlyCache = false,
                    bool warpCooperative = false) {
    if (!recording_)
      return;
    if (address.pointer.constantSpace) {
      ++facts_.constantLoads;
      return;
    }
    AccessFact fact;
    fact.loc = site->getBeginLoc();
    fact.space = address.pointer.space;
    fact.kind = kind;
    fact.variable = address.pointer.baseName.empty() ? "?" : address.pointer.baseName;
    fact.expression = text(site);
    fact.bytes = static_cast<unsigned>(typeSize(address.type).value_or(0));
    // A 16x16 wmma tile moved by a warp: 8 elements per thread.
    if (warpCooperative)
      fact.bytes *= 8;
    fact.byteOffset = address.pointer.poly;
    fact.loopDepth = loopDepth_;
    fact.tripWeight = tripWeight_;
    fact.vectorized = isVectorAccessType(address.type);
    fact.readOnlyCache = readOnlyCache;
    fact.warpCooperative = warpCooperative;
    facts_.accesses.push_back(std::move(fact));
  }

  Value loadResult(const Address &address, QualType type, const std::string &name) {
    const Variance variance = varianceOf(address.pointer);
    if (!type.isNull() && type->isPointerType()) {
      Value pointer;
      pointer.isPointer = true;
      pointer.baseName = name;
      pointer.space = MemorySpace::Global;
      pointer.poly = opaque(variance, true).poly;
      return pointer;
    }
    return opaque(variance, true, false, "load " + name);
  }

  Value load(const Expr *site, const Address &address, QualType type) {
    recordAccess(site, address, AccessKind::Load);
    return loadResult(address, type, address.pointer.baseName);
  }

  void countOps(double count, QualType type) {
    if (!recording_)
      return;
    facts_.weightedOps += count * tripWeight_;
    if (isHalfType(type))
      ++facts_.halfOps;
    else if (isBf16Type(type))
      ++facts_.bf16Ops;
  }

  // ---- expressions -------------------------------------------------------

  Value eval(const Expr *expr) {
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
        isa<UnaryExprOrTypeTraitExpr>(expr) || isa<LambdaExpr>(expr) || isa<CXXThisExpr>(expr))
      return opaque(Variance::Uniform);
    if (const auto *stmtExpr = dyn_cast<StmtExpr>(expr)) {
      walkStmt(stmtExpr->getSubStmt());
      return opaque(Variance::LaneVarying);
    }
    return evalChildren(expr);
  }

  // Anything we do not model: its sub-expressions still count (accesses, ops).
  Value evalChildren(const Stmt *stmt) {
    Variance variance = Variance::Uniform;
    bool memory = false, param = false;
    for (const Stmt *child : stmt->children()) {
      if (const auto *childExpr = dyn_cast_or_null<Expr>(child)) {
        Value value = eval(childExpr);
        variance = join(variance, varianceOf(value));
        memory |= memoryOf(value);
        param |= paramOf(value);
      }
    }
    return opaque(variance, memory, param);
  }

  Value evalDeclRef(const DeclRefExpr *ref) {
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
  Value registerMember(const MemberExpr *member) {
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

  Value evalCast(const CastExpr *cast) {
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

  Value pointerStep(const Value &pointer, const Value &offset, QualType pointerType, int sign) {
    Value result = pointer;
    const std::int64_t size = typeSize(pointerType->getPointeeType()).value_or(1);
    Value step = offset;
    if (step.isPointer)
      step = opaqueJoin({&offset});
    result.poly = pointer.poly + step.poly.scaled(size * sign);
    return normalized(result);
  }

  Value divideByConstant(const Value &value, std::int64_t divisor) {
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
        if (value.poly.without(lane_).variance(symbols_) != Variance::LaneVarying && divisor % (32 * c) == 0)
          return opaque(Variance::WarpUniform, memoryOf(value), paramOf(value), "warp");
      }
    }
    return opaque(variance, memoryOf(value), paramOf(value));
  }

  Value moduloConstant(const Value &value, std::int64_t modulus) {
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
        if (value.poly.without(lane_).variance(symbols_) != Variance::LaneVarying &&
            modulus % (32 * std::llabs(c)) == 0) {
          Value result;
          result.poly = Polynomial::symbol(lane_, c) + opaque(Variance::WarpUniform).poly;
          return result;
        }
      }
    }
    return opaque(variance, memoryOf(value), paramOf(value));
  }

  Value integerArithmetic(BinaryOperatorKind op, const Value &left, const Value &right) {
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

  bool isArithmetic(BinaryOperatorKind op) const {
    return BinaryOperator::isAdditiveOp(op) || BinaryOperator::isMultiplicativeOp(op) ||
           BinaryOperator::isShiftOp(op) || BinaryOperator::isBitwiseOp(op);
  }

  Value arithmetic(BinaryOperatorKind op, const Value &left, const Value &right, QualType leftType, QualType rightType,
                   QualType resultType) {
    if (isArithmetic(op) && (isFloatingLike(resultType) || memoryOf(left) || memoryOf(right)))
      countOps(1, resultType);
    if (left.isPointer && !right.isPointer && (op == BO_Add || op == BO_Sub) && leftType->isPointerType())
      return pointerStep(left, right, leftType, op == BO_Add ? 1 : -1);
    if (right.isPointer && !left.isPointer && op == BO_Add && rightType->isPointerType())
      return pointerStep(right, left, rightType, 1);
    if (resultType->isIntegralOrEnumerationType() && !resultType->isBooleanType() && !left.isPointer &&
        !right.isPointer)
      return integerArithmetic(op, left, right);
    return opaqueJoin({&left, &right});
  }

  Value evalBinary(const BinaryOperator *op) {
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

  Value evalAssign(const BinaryOperator *op) {
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

  Value evalUnary(const UnaryOperator *op) {
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

  Value evalConditional(const AbstractConditionalOperator *conditional) {
    Value condition = eval(conditional->getCond());
    const Variance control =
        recordBranch(conditional->getQuestionLoc(), BranchKind::Conditional, conditional->getCond(), condition);
    control_.push_back(control);
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

  Value evalConstruct(const CXXConstructExpr *construct) {
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

  Value evalOperatorCall(const CXXOperatorCallExpr *call) {
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
    Value result = evalChildren(call);
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

  // ---- calls -------------------------------------------------------------

  void recordSync(const CallExpr *call, const std::string &function) {
    if (!recording_)
      return;
    SyncFact fact;
    fact.loc = call->getBeginLoc();
    fact.function = function;
    fact.underThreadDependentCondition =
        std::any_of(control_.begin(), control_.end(), [](Variance v) { return v != Variance::Uniform; });
    fact.afterThreadDependentExit = threadDependentExit_;
    fact.loopDepth = loopDepth_;
    fact.tripWeight = tripWeight_;
    facts_.syncs.push_back(fact);
  }

  Value evalCall(const CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    const std::string name = callee && callee->getIdentifier() ? callee->getName().str() : "";
    const std::string qualified = callee ? callee->getQualifiedNameAsString() : "";
    const auto *memberCall = dyn_cast<CXXMemberCallExpr>(call);
    const bool cooperativeGroups = qualified.find("cooperative_groups") != std::string::npos;
    // The group a cooperative-groups query is about: `g.thread_rank()` (a
    // member call, or a static member as thread_block_tile's are in CUDA 12
    // and 13) or `cg::thread_rank(g)`.
    const Expr *group = memberCall ? memberCall->getImplicitObjectArgument() : nullptr;
    if (!group && cooperativeGroups) {
      if (const auto *member = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts()))
        group = member->getBase();
      else if (call->getNumArgs() == 1)
        group = call->getArg(0);
    }

    // Barriers: __syncthreads*, __syncwarp, cooperative-groups sync.
    if (name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
        name == "__syncthreads_or" || name == "__syncwarp" || name == "__barrier_sync" ||
        (name == "sync" && (memberCall || cooperativeGroups)) || (cooperativeGroups && name == "grid_sync")) {
      recordSync(call, memberCall || cooperativeGroups ? "cg::sync" : name);
      evalChildren(call);
      return opaque(Variance::Uniform);
    }
    if (name.rfind("atomic", 0) == 0 && call->getNumArgs() >= 1) {
      Value pointer = eval(call->getArg(0));
      for (unsigned i = 1; i < call->getNumArgs(); ++i)
        eval(call->getArg(i));
      MemorySpace space = MemorySpace::Global;
      if (pointer.isPointer) {
        space = pointer.space;
        recordAccess(call, Address{pointer, call->getArg(0)->getType()->getPointeeType()}, AccessKind::Atomic);
      }
      if (recording_)
        facts_.atomics.push_back({call->getBeginLoc(), name, space, loopDepth_, tripWeight_});
      countOps(1, call->getType());
      return opaque(Variance::LaneVarying, true);
    }
    if (name.rfind("__shfl", 0) == 0 ||
        (group && (name == "shfl" || name == "shfl_down" || name == "shfl_up" || name == "shfl_xor")) ||
        (cooperativeGroups && name == "reduce")) {
      if (recording_)
        ++facts_.warpShuffles;
      Value result = evalChildren(call);
      // __shfl_sync(mask, v, constant lane) broadcasts one lane: warp-uniform.
      if ((name == "__shfl_sync" || name == "__shfl") && call->getNumArgs() >= 3 &&
          evaluateInt(call->getArg(name == "__shfl_sync" ? 2 : 1)))
        return opaque(Variance::WarpUniform, memoryOf(result));
      return opaque(Variance::LaneVarying, memoryOf(result));
    }
    if (name == "__ballot_sync" || name == "__any_sync" || name == "__all_sync" || name == "__activemask") {
      Value result = evalChildren(call);
      return opaque(Variance::WarpUniform, memoryOf(result));
    }
    if ((name == "__ldg" || name == "__ldcg" || name == "__ldca" || name == "__ldcs" || name == "__ldlu" ||
         name == "__ldcv") &&
        call->getNumArgs() == 1) {
      Value pointer = eval(call->getArg(0));
      if (!pointer.isPointer)
        return opaqueJoin({&pointer});
      Address address{pointer, call->getArg(0)->getType()->getPointeeType()};
      recordAccess(call, address, AccessKind::Load, name == "__ldg");
      return loadResult(address, call->getType(), pointer.baseName);
    }
    if ((name == "__stcg" || name == "__stcs" || name == "__stwb" || name == "__stwt") && call->getNumArgs() == 2) {
      Value pointer = eval(call->getArg(0));
      eval(call->getArg(1));
      if (pointer.isPointer)
        recordAccess(call, Address{pointer, call->getArg(0)->getType()->getPointeeType()}, AccessKind::Store);
      return opaque(Variance::Uniform);
    }
    if (qualified.find("wmma::") != std::string::npos)
      return evalWmma(call, name);
    if (group && (name == "thread_rank" || name == "meta_group_rank" || name == "size" || name == "num_threads" ||
                  name == "group_index" || name == "thread_index"))
      return cooperativeGroupQuery(group, name);
    if (isHalfIntrinsic(name)) {
      if (recording_) {
        bool bf16 = false;
        for (const Expr *arg : call->arguments())
          bf16 |= isBf16Type(arg->getType());
        ++(bf16 ? facts_.bf16Ops : facts_.halfOps);
        facts_.weightedOps += (name.find("fma") != std::string::npos ? 2.0 : 1.0) * tripWeight_;
      }
      return evalChildren(call);
    }
    if (callee && callee->hasBody() && isInlinable(callee))
      return inlineCall(callee, call);

    Value result = evalChildren(call);
    if (isFloatingLike(call->getType()))
      countOps(name.find("fma") != std::string::npos ? 2.0 : 1.0, call->getType());
    return result;
  }

  static bool isHalfIntrinsic(const std::string &name) {
    static const std::regex halfOp(
        "__h(add|sub|mul|div|fma|neg|abs|max|min)2?(_rn|_sat|_relu)?|h(exp|log|sqrt|rsqrt|rcp)2?");
    return std::regex_match(name, halfOp);
  }

  bool isInlinable(const FunctionDecl *callee) const {
    if (callee->hasAttr<CUDAGlobalAttr>() || callStack_.size() > kMaxInlineDepth)
      return false;
    if (std::find(callStack_.begin(), callStack_.end(), callee) != callStack_.end())
      return false;
    const SourceManager &sources = ast_.getSourceManager();
    if (sources.isInSystemHeader(sources.getExpansionLoc(callee->getLocation())))
      return false;
    return callee->hasAttr<CUDADeviceAttr>() || callee->isConstexpr() || callee->isInlined();
  }

  Value inlineCall(const FunctionDecl *callee, const CallExpr *call) {
    Env calleeEnv;
    for (unsigned i = 0; i < callee->getNumParams() && i < call->getNumArgs(); ++i) {
      const ParmVarDecl *param = callee->getParamDecl(i);
      Value argument = eval(call->getArg(i));
      if (!param->getType()->isReferenceType())
        argument.isReference = false;
      calleeEnv[param] = argument;
    }
    if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
      eval(member->getImplicitObjectArgument());
    std::swap(env_, calleeEnv);
    callStack_.push_back(callee);
    std::vector<Value> returned;
    auto *savedReturns = returns_;
    const bool savedExit = threadDependentExit_;
    returns_ = &returned;
    walkStmt(callee->getBody());
    returns_ = savedReturns;
    threadDependentExit_ = savedExit;
    callStack_.pop_back();
    std::swap(env_, calleeEnv);
    if (returned.empty())
      return opaque(Variance::Uniform);
    bool allSame = true;
    for (const Value &value : returned)
      allSame &= value.sameAs(returned.front());
    if (allSame)
      return returned.front();
    Variance variance = Variance::Uniform;
    bool memory = false;
    for (const Value &value : returned) {
      variance = join(variance, varianceOf(value));
      memory |= memoryOf(value);
    }
    return opaque(variance, memory);
  }

  Value evalWmma(const CallExpr *call, const std::string &name) {
    if (name == "load_matrix_sync" && call->getNumArgs() >= 2) {
      eval(call->getArg(0));
      Value pointer = eval(call->getArg(1));
      for (unsigned i = 2; i < call->getNumArgs(); ++i)
        eval(call->getArg(i));
      if (pointer.isPointer)
        recordAccess(call, Address{pointer, call->getArg(1)->getType()->getPointeeType()}, AccessKind::Load, false,
                     true);
      return opaque(Variance::Uniform);
    }
    if (name == "store_matrix_sync" && call->getNumArgs() >= 2) {
      Value pointer = eval(call->getArg(0));
      for (unsigned i = 1; i < call->getNumArgs(); ++i)
        eval(call->getArg(i));
      if (pointer.isPointer)
        recordAccess(call, Address{pointer, call->getArg(0)->getType()->getPointeeType()}, AccessKind::Store, false,
                     true);
      return opaque(Variance::Uniform);
    }
    if (name == "mma_sync" && recording_) {
      ++facts_.tensorCoreOps;
      // 16x16x16 multiply-accumulate: 2*4096 flops per warp, 256 per thread.
      facts_.weightedOps += 256.0 * tripWeight_;
    }
    return evalChildren(call);
  }

  Value cooperativeGroupQuery(const Expr *groupObject, const std::string &name) {
    eval(groupObject);
    const std::string group = groupObject->getType().getAsString();
    if (name == "thread_rank") {
      Value rank;
      if (group.find("grid") != std::string::npos) {
        rank.poly = Polynomial::symbol(lane_) + Polynomial::symbol(symbols_.builtin(SymbolKind::BlockIdx, 0)) *
                                                    Polynomial::symbol(symbols_.builtin(SymbolKind::BlockDim, 0));
      } else if (group.find("tile") != std::string::npos || group.find("coalesced") != std::string::npos) {
        rank.poly = Polynomial::symbol(lane_) + opaque(Variance::WarpUniform).poly;
      } else {
        rank.poly = Polynomial::symbol(lane_) + Polynomial::symbol(symbols_.builtin(SymbolKind::ThreadIdx, 1)) *
                                                    Polynomial::symbol(symbols_.builtin(SymbolKind::BlockDim, 0));
      }
      return rank;
    }
    if (name == "meta_group_rank")
      return opaque(Variance::WarpUniform);
    return opaque(Variance::Uniform);
  }

  // ---- branches and control flow -------------------------------------------

  Value pureEval(const Expr *expr) {
    const bool savedRecording = recording_;
    Env saved = env_;
    recording_ = false;
    Value value = eval(expr);
    env_ = std::move(saved);
    recording_ = savedRecording;
    return value;
  }

  // A thread index that is affine in threadIdx with thread-invariant coefficients.
  bool isAffineThreadIndex(const Value &value) const {
    if (value.isPointer)
      return false;
    bool hasThread = false;
    Polynomial rest = value.poly;
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
  bool isBoundsGuard(const Expr *condition) {
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
  Variance recordBranch(SourceLocation loc, BranchKind kind, const Expr *condition, const Value &value) {
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

  Env merge(const Env &a, const Env &b, Variance control) {
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

  std::set<const VarDecl *> carriedVars(std::initializer_list<const Stmt *> parts) {
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
  void widen(const std::set<const VarDecl *> &vars, std::initializer_list<const Stmt *> parts) {
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

  double constantTripCount(const ForStmt *loop, const VarDecl *induction, std::int64_t step) {
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

  void walkLoopBody(const Stmt *body, Variance control, double trips) {
    control_.push_back(control);
    ++loopDepth_;
    const double savedWeight = tripWeight_;
    tripWeight_ *= std::max(trips, 1.0);
    walkStmt(body);
    tripWeight_ = savedWeight;
    --loopDepth_;
    control_.pop_back();
  }

  void finishLoop(const std::set<const VarDecl *> &vars, Variance control) {
    for (const VarDecl *var : vars)
      if (env_.count(var))
        env_[var] = forgetOffset(env_[var], control);
  }

  void walkFor(const ForStmt *loop) {
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
    walkLoopBody(loop->getBody(), control, trips);
    if (loop->getInc()) {
      Env saved = env_;
      eval(loop->getInc());
      env_ = std::move(saved);
    }
    finishLoop(carried, control);
  }

  void walkWhile(const Expr *condition, const Stmt *body, BranchKind kind, SourceLocation loc) {
    auto carried = carriedVars({body, condition});
    widen(carried, {body, condition});
    Variance control = Variance::Uniform;
    if (kind == BranchKind::While) {
      Value value = eval(condition);
      control = recordBranch(loc, kind, condition, value);
      walkLoopBody(body, control, kDefaultTripCount);
    } else {
      walkLoopBody(body, Variance::Uniform, kDefaultTripCount);
      Value value = eval(condition);
      control = recordBranch(loc, kind, condition, value);
    }
    finishLoop(carried, control);
  }

  void walkIf(const IfStmt *branch) {
    walkStmt(branch->getInit());
    if (const auto *conditionVar = branch->getConditionVariable())
      declare(conditionVar);
    Value condition = eval(branch->getCond());
    Variance control = branch->isConstexpr()
                           ? Variance::Uniform
                           : recordBranch(branch->getIfLoc(), BranchKind::If, branch->getCond(), condition);
    control_.push_back(control);
    Env before = env_;
    walkStmt(branch->getThen());
    Env afterThen = env_;
    env_ = before;
    walkStmt(branch->getElse());
    env_ = merge(afterThen, env_, control);
    control_.pop_back();
    if (control != Variance::Uniform && (containsReturn(branch->getThen()) || containsReturn(branch->getElse())))
      threadDependentExit_ = true;
  }

  void walkSwitch(const SwitchStmt *switchStmt) {
    walkStmt(switchStmt->getInit());
    Value condition = eval(switchStmt->getCond());
    const Variance control =
        recordBranch(switchStmt->getSwitchLoc(), BranchKind::Switch, switchStmt->getCond(), condition);
    control_.push_back(control);
    Env before = env_;
    walkStmt(switchStmt->getBody());
    env_ = merge(before, env_, control);
    control_.pop_back();
  }

  void declare(const VarDecl *var) {
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

  void walkStmt(const Stmt *stmt) {
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
      walkLoopBody(loop->getBody(), Variance::Uniform, kDefaultTripCount);
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
};

void collectKernelFacts(ASTContext &ast, SymbolTable &symbols, const FunctionDecl *kernel, KernelFacts &facts) {
  facts.decl = kernel;
  facts.loc = kernel->getLocation();
  if (const auto *bounds = kernel->getAttr<CUDALaunchBoundsAttr>()) {
    auto evaluate = [&](const Expr *expr) -> std::optional<std::int64_t> {
      if (!expr || expr->isValueDependent() || expr->containsErrors())
        return std::nullopt;
      Expr::EvalResult result;
      if (expr->EvaluateAsInt(result, ast) && result.Val.getInt().isRepresentableByInt64())
        return result.Val.getInt().getExtValue();
      return std::nullopt;
    };
    facts.launchBounds.maxThreadsPerBlock = evaluate(bounds->getMaxThreads());
    facts.launchBounds.minBlocksPerSM = evaluate(bounds->getMinBlocks());
  }
  KernelWalker walker(ast, symbols, facts);
  walker.walkKernel(kernel);
  facts.budgetExhausted = walker.budgetExhausted();
}

LaneStride strideAcrossLanes(const AccessFact &access, const SymbolTable &symbols) {
  LaneStride stride;
  const SymbolId lane = symbols.builtin(SymbolKind::ThreadIdx, 0);
  for (const auto &[monomial, coefficient] : access.byteOffset.terms())
    for (SymbolId symbol : monomial)
      if (symbol != lane && symbols[symbol].variance == Variance::LaneVarying)
        return stride; // data-dependent or non-affine: unknown
  auto derivative = access.byteOffset.derivative(lane);
  if (!derivative || derivative->variance(symbols) == Variance::LaneVarying)
    return stride;
  const std::int64_t size = access.bytes ? access.bytes : 1;
  if (auto bytes = derivative->constantValue()) {
    stride.strideClass = StrideClass::Constant;
    stride.bytes = *bytes;
    const std::int64_t magnitude = std::llabs(*bytes);
    std::int64_t elements = (magnitude + size - 1) / size;
    stride.elements = *bytes < 0 ? -elements : elements;
    return stride;
  }
  stride.strideClass = StrideClass::Symbolic;
  if (auto elements = derivative->dividedExactly(size))
    stride.symbolic = elements->toString(symbols);
  else
    stride.symbolic = "(" + derivative->toString(symbols) + ")/" + std::to_string(size);
  return stride;
}

} // namespace cudaperf::analysis
