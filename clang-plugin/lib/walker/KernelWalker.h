// KernelWalker, the abstract interpreter behind collectKernelFacts (IndexAnalysis.h).
// Its members are defined by section in Values.cpp, Memory.cpp, Expressions.cpp,
// CudaCalls.cpp and ControlFlow.cpp.
#pragma once

#include "../Facts.h"
#include "WalkerValues.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceLocation.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudaperf::analysis {

namespace walker {

// Work limit per kernel: LLM-written or fuzzed code must not make the analysis
// explode (nested loops re-walk their bodies to find loop-carried values).
inline constexpr unsigned kMaxSteps = 400000;
inline constexpr int kMaxInlineDepth = 3;

} // namespace walker

class KernelWalker {
public:
  KernelWalker(clang::ASTContext &ast, SymbolTable &symbols, KernelFacts &facts)
      : ast_(ast), symbols_(symbols), facts_(facts), lane_(symbols.builtin(SymbolKind::ThreadIdx, 0)) {}

  void walkKernel(const clang::FunctionDecl *kernel);
  bool budgetExhausted() const { return budgetExhausted_; }

private:
  clang::ASTContext &ast_;
  SymbolTable &symbols_;
  KernelFacts &facts_;
  const SymbolId lane_;
  walker::Env env_;
  bool recording_ = true;
  int dryDepth_ = 0;
  unsigned loopDepth_ = 0;
  double tripWeight_ = 1;
  // The enclosing conditions: how each varies, and where it is (a barrier's
  // note points at the innermost thread-dependent one).
  std::vector<std::pair<Variance, clang::SourceLocation>> control_;
  bool threadDependentExit_ = false;
  clang::SourceLocation threadDependentExitLoc_; // the condition of the first such return
  std::vector<const clang::FunctionDecl *> callStack_;
  std::vector<walker::Value> *returns_ = nullptr;
  std::optional<walker::Value> thisPointer_; // `this` of the method being walked, when its object is in memory
  unsigned steps_ = 0;
  bool budgetExhausted_ = false;
  std::set<const clang::VarDecl *> sharedSeen_;

  // ---- values ------------------------------------------------------------

  walker::Value constant(std::int64_t value);
  // groupLanes: for a LaneVarying value, the aligned lane groups that share it (Symbol::groupLanes).
  walker::Value opaque(Variance variance, bool fromMemory = false, bool fromParam = false,
                       const std::string &name = "?", unsigned groupLanes = 1);
  unsigned groupLanesOf(const walker::Value &value) const;
  // threadIdx.x % lanes or threadIdx.x / lanes for a value c*threadIdx.x + (aligned, warp-uniform rest).
  std::optional<walker::Value> splitLanes(const walker::Value &value, std::int64_t divisor, bool remainder);
  bool keepsLaneAlignment(const Polynomial &rest, std::int64_t divisor) const;
  Variance varianceOf(const walker::Value &value) const;
  bool memoryOf(const walker::Value &value) const;
  bool paramOf(const walker::Value &value) const;

  // An opaque value that varies, and derives from memory/params, like all of `values`.
  walker::Value opaqueJoin(std::initializer_list<const walker::Value *> values, Variance extra = Variance::Uniform);

  // Keeps a pointer's memory object but forgets its offset (loop-carried pointers).
  walker::Value forgetOffset(const walker::Value &value, Variance extra);

  walker::Value normalized(walker::Value value);
  std::optional<std::int64_t> typeSize(clang::QualType type) const;
  std::optional<std::int64_t> fieldOffset(const clang::FieldDecl *field) const;
  std::optional<std::int64_t> evaluateInt(const clang::Expr *expr) const;
  std::string text(const clang::Stmt *stmt) const;
  void bindKernelParam(const clang::ParmVarDecl *param);

  // threadIdx.x and friends: a PseudoObjectExpr over an MSPropertyRefExpr in Clang.
  std::optional<SymbolId> builtinIndex(const clang::Expr *expr) const;

  // ---- memory ------------------------------------------------------------

  walker::Value memoryObject(const clang::VarDecl *var, MemorySpace space);
  void noteSharedDecl(const clang::VarDecl *var);
  const clang::Expr *stripNoOps(const clang::Expr *expr) const;

  // The memory location an lvalue names, or nullopt for registers (locals).
  std::optional<walker::Address> address(const clang::Expr *lvalue);

  void recordAccess(const clang::Expr *site, const walker::Address &address, AccessKind kind,
                    bool readOnlyCache = false, bool warpCooperative = false);
  walker::Value loadResult(const walker::Address &address, clang::QualType type, const std::string &name);
  walker::Value load(const clang::Expr *site, const walker::Address &address, clang::QualType type);
  void countOps(double count, clang::QualType type);

  // ---- expressions -------------------------------------------------------

  walker::Value eval(const clang::Expr *expr);

  // Anything we do not model: its sub-expressions still count (accesses, ops).
  walker::Value evalChildren(const clang::Stmt *stmt);

  walker::Value evalDeclRef(const clang::DeclRefExpr *ref);

  // `s.field` where `s` lives in registers (a by-value struct parameter or local).
  walker::Value registerMember(const clang::MemberExpr *member);

  walker::Value evalCast(const clang::CastExpr *cast);
  walker::Value pointerStep(const walker::Value &pointer, const walker::Value &offset, clang::QualType pointerType,
                            int sign);
  bool isToolchainFunction(const clang::FunctionDecl *callee) const;
  bool isSmallValueType(clang::QualType type) const;
  walker::Value divideByConstant(const walker::Value &value, std::int64_t divisor);
  walker::Value moduloConstant(const walker::Value &value, std::int64_t modulus);
  walker::Value integerArithmetic(clang::BinaryOperatorKind op, const walker::Value &left, const walker::Value &right);
  bool isArithmetic(clang::BinaryOperatorKind op) const;
  walker::Value arithmetic(clang::BinaryOperatorKind op, const walker::Value &left, const walker::Value &right,
                           clang::QualType leftType, clang::QualType rightType, clang::QualType resultType);
  walker::Value evalBinary(const clang::BinaryOperator *op);
  walker::Value evalAssign(const clang::BinaryOperator *op);
  walker::Value evalUnary(const clang::UnaryOperator *op);
  walker::Value evalConditional(const clang::AbstractConditionalOperator *conditional);
  walker::Value evalConstruct(const clang::CXXConstructExpr *construct);
  walker::Value evalOperatorCall(const clang::CXXOperatorCallExpr *call);

  // ---- calls -------------------------------------------------------------

  void recordSync(const clang::CallExpr *call, const std::string &function);
  walker::Value evalCall(const clang::CallExpr *call);
  static bool isHalfIntrinsic(const std::string &name);
  bool isInlinable(const clang::FunctionDecl *callee) const;
  walker::Value inlineCall(const clang::FunctionDecl *callee, const clang::CallExpr *call);
  walker::Value evalWmma(const clang::CallExpr *call, const std::string &name);
  walker::Value cooperativeGroupQuery(const clang::Expr *groupObject, const std::string &name);

  // ---- branches and control flow -------------------------------------------

  walker::Value pureEval(const clang::Expr *expr);

  // A thread index that is affine in threadIdx with thread-invariant coefficients.
  bool isAffineThreadIndex(const walker::Value &value) const;

  // `i < n` on a global index (or a grid-stride loop variable) against a
  // problem size: divergent only in the last, partial warp.
  bool isBoundsGuard(const clang::Expr *condition);

  // Records a branch and returns how its condition varies (the control variance).
  Variance recordBranch(clang::SourceLocation loc, BranchKind kind, const clang::Expr *condition,
                        const walker::Value &value);

  walker::Env merge(const walker::Env &a, const walker::Env &b, Variance control);
  std::set<const clang::VarDecl *> carriedVars(std::initializer_list<const clang::Stmt *> parts);

  // Values carried around a loop: re-walk the body (without recording) until
  // the variance of each carried variable stops growing.
  void widen(const std::set<const clang::VarDecl *> &vars, std::initializer_list<const clang::Stmt *> parts);

  double constantTripCount(const clang::ForStmt *loop, const clang::VarDecl *induction, std::int64_t step);
  void walkLoopBody(const clang::Stmt *body, Variance control, double trips, clang::SourceLocation condition);
  void finishLoop(const std::set<const clang::VarDecl *> &vars, Variance control);
  void walkFor(const clang::ForStmt *loop);
  void walkWhile(const clang::Expr *condition, const clang::Stmt *body, BranchKind kind, clang::SourceLocation loc);
  void walkIf(const clang::IfStmt *branch);
  void walkSwitch(const clang::SwitchStmt *switchStmt);
  void declare(const clang::VarDecl *var);
  void walkStmt(const clang::Stmt *stmt);
};

} // namespace cudaperf::analysis
