// What KernelWalker computes for an expression (Value: a polynomial, maybe an
// address in a memory object), its loop-update classification, and the AST
// helpers the walker files share (defined in AstHelpers.cpp).
#pragma once

#include "../Polynomial.h"
#include "cudaperf/contracts/FeatureReport.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Type.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cudaperf::analysis::walker {

struct Value {
  Polynomial poly;          // integer value, or byte offset for pointers/references
  bool isPointer = false;   // a pointer into memory object `baseName`
  bool isReference = false; // a C++ reference bound to memory: poly is its address
  const clang::ValueDecl *base = nullptr;
  std::string baseName;
  MemorySpace space = MemorySpace::Global;
  bool constantSpace = false;

  bool sameAs(const Value &other) const {
    return poly == other.poly && isPointer == other.isPointer && isReference == other.isReference &&
           base == other.base && baseName == other.baseName && space == other.space;
  }
};

using Env = std::map<const clang::VarDecl *, Value>;

struct Address {
  Value pointer;
  clang::QualType type; // the type of the lvalue moved by the access
};

struct Update {
  const clang::Expr *step = nullptr; // nullptr with sign: ++/--
  int sign = 1;
};

struct UpdateSet {
  std::vector<Update> updates;
  bool nonAdditive = false;
};

const clang::VarDecl *referencedVar(const clang::Expr *expr);

// Variables written anywhere in a statement (assignments, ++/--, address taken).
void collectAssigned(const clang::Stmt *stmt, std::set<const clang::VarDecl *> &out);

bool mentionsAny(const clang::Stmt *stmt, const std::set<const clang::VarDecl *> &vars);
bool containsReturn(const clang::Stmt *stmt);

// Classifies how a statement updates variables: additive steps (v += e, ++v)
// executed once per iteration, or anything else.
void collectUpdates(const clang::Stmt *stmt, bool unconditional, std::map<const clang::VarDecl *, UpdateSet> &out);

bool isHalfType(clang::QualType type);
bool isBf16Type(clang::QualType type);
bool isFloatingLike(clang::QualType type);
bool isVectorAccessType(clang::QualType type);

} // namespace cudaperf::analysis::walker
