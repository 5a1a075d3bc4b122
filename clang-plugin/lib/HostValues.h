// Integer values of host expressions: a launch's grid and block, the sizes a
// launcher computes. Constants, constexpr, macros and locals initialised once
// and never written again are known; with `bindings`, so are the parameters
// they give values to (the task's benchmark sizes bound to the entry's
// parameters), and through them min/max, conditionals and small helpers
// (`cdiv(n, 256)`) whose body is one return statement.
#pragma once

#include "cudaperf/contracts/FeatureReport.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace cudaperf::analysis {

// Parameters (and nothing else) with the values a call gives them. A pointer
// parameter bound to kNonNullPointer holds a valid buffer (the harness passes
// one for every pointer argument of the entry): `p == nullptr`, `!p` and `if (p)`
// are decided by it, and nothing else about the pointer is (its address, its
// difference to another).
using Bindings = std::map<const clang::VarDecl *, std::int64_t>;
inline constexpr std::int64_t kNonNullPointer = INT64_MIN;

// The parameter argument `argument` of `call` binds to; nullptr for a member
// operator's object (argument 0 of `a = b`) and for variadic extras.
const clang::ParmVarDecl *boundParameter(const clang::CallExpr *call, unsigned argument);

// A const reference parameter (`const T &`): what binds to it is read, not written, by the call's syntax.
bool bindsConstReference(const clang::ParmVarDecl *parameter);

// The kernel a <<<>>> launches (also through a template's DeclRefExpr), or nullptr.
const clang::FunctionDecl *launchedKernel(const clang::CUDAKernelCallExpr *launch);

class HostValues {
public:
  explicit HostValues(clang::ASTContext &ast) : ast_(ast) {}

  // `function` is the one whose body holds `expr`: its locals count as known
  // only if it never writes them after their initialisation.
  std::optional<std::int64_t> integer(const clang::Expr *expr, const clang::FunctionDecl *function,
                                      const Bindings &bindings = {}, int depth = 0);
  // True where `expr` is a pointer known not to be null: a parameter bound to
  // kNonNullPointer, or a local initialised from one, that `function` never
  // changes. False is never known (nullopt).
  std::optional<bool> nonNull(const clang::Expr *expr, const clang::FunctionDecl *function, const Bindings &bindings,
                              int depth = 0);
  // A dim3 (or an integer, as CUDA converts it), each known extent set.
  Dim3 dim3(const clang::Expr *expr, const clang::FunctionDecl *function, const Bindings &bindings = {}, int depth = 0);

  // `value` as an integer of `type` holds it (wrapping to its width; a bool is 0 or 1), or nullopt.
  static std::optional<std::int64_t> asType(const clang::ASTContext &ast, clang::QualType type, std::int64_t value);

  // Whether `function` may change `var` after its initialisation: any use
  // but a read (HostValues.cpp, WriteScan); a body too deep to read changes everything.
  bool writes(const clang::FunctionDecl *function, const clang::VarDecl *var);
  // The evaluation budget ran out (a fan-out of helpers): later values are unknown.
  bool exhausted() const { return steps_ > kMaxSteps; }
  static constexpr std::size_t kMaxSteps = 200000;

private:
  std::optional<std::int64_t> call(const clang::CallExpr *call, const clang::FunctionDecl *function,
                                   const Bindings &bindings, int depth);
  std::optional<std::int64_t> variable(const clang::VarDecl *var, const clang::FunctionDecl *function,
                                       const Bindings &bindings, int depth);

  static bool trustedAtInit(const clang::VarDecl *var);

  struct Writes {
    std::set<const clang::VarDecl *> variables;
    bool everything = false;
  };
  clang::ASTContext &ast_;
  std::map<const clang::FunctionDecl *, Writes> written_;
  std::size_t steps_ = 0;
};

} // namespace cudaperf::analysis
