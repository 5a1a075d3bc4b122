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

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace cudaperf::analysis {

// Parameters (and nothing else) with the values a call gives them.
using Bindings = std::map<const clang::VarDecl *, std::int64_t>;

class HostValues {
public:
  explicit HostValues(clang::ASTContext &ast) : ast_(ast) {}

  // `function` is the one whose body holds `expr`: its locals count as known
  // only if it never writes them after their initialisation.
  std::optional<std::int64_t> integer(const clang::Expr *expr, const clang::FunctionDecl *function,
                                      const Bindings &bindings = {}, int depth = 0);
  // A dim3 (or an integer, as CUDA converts it), each known extent set.
  Dim3 dim3(const clang::Expr *expr, const clang::FunctionDecl *function, const Bindings &bindings = {}, int depth = 0);

  // Whether `function` writes `var` (assigns, increments, takes its address, sets a member).
  bool writes(const clang::FunctionDecl *function, const clang::VarDecl *var);

private:
  std::optional<std::int64_t> call(const clang::CallExpr *call, const clang::FunctionDecl *function,
                                   const Bindings &bindings, int depth);
  std::optional<std::int64_t> variable(const clang::VarDecl *var, const clang::FunctionDecl *function,
                                       const Bindings &bindings, int depth);

  clang::ASTContext &ast_;
  std::map<const clang::FunctionDecl *, std::set<const clang::VarDecl *>> written_;
};

} // namespace cudaperf::analysis
