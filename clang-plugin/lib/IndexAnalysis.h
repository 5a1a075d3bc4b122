// Index analysis: an abstract interpretation of a kernel body that expresses
// every memory address, loop variable and branch condition as a polynomial
// over thread/block builtins, parameters and loop counters (Polynomial.h).
// Straight-line code keeps exact definitions; values merged at control-flow
// joins or carried around loops become opaque symbols that remember how they
// vary across a warp. Device functions called from a kernel are walked inline.
#pragma once

#include "Facts.h"

#include <clang/AST/ASTContext.h>

namespace cudaperf::analysis {

// Walks one kernel (or uninstantiated kernel template) and fills `facts`.
void collectKernelFacts(clang::ASTContext &ast, SymbolTable &symbols, const clang::FunctionDecl *kernel,
                        KernelFacts &facts);

// How one access's address moves from lane to lane (threadIdx.x to threadIdx.x + 1).
struct LaneStride {
  StrideClass strideClass = StrideClass::Unknown;
  std::int64_t bytes = 0;    // for Constant
  std::int64_t elements = 0; // bytes / access size, rounded away from zero
  std::string symbolic;      // for Symbolic: the coefficient, printed
};

LaneStride strideAcrossLanes(const AccessFact &access, const SymbolTable &symbols);

} // namespace cudaperf::analysis
