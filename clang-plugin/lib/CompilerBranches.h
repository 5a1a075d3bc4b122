// Which lines of the analysed file depend on the compiler or on the
// compilation side. The analysis parses Clang's host pass; nvcc's device pass
// builds the code that runs. A file that tests __CUDA_ARCH__, __clang__,
// __NVCC__, ... can show the analysis one kernel body and run another (a
// reward hack on R_str), so the report lists every such test and use
// (docs/features.md "Compiler branches").
#pragma once

#include "cudaperf/contracts/FeatureReport.h"

#include <clang/Lex/Preprocessor.h>
#include <llvm/ADT/StringRef.h>

#include <memory>
#include <vector>

namespace cudaperf::analysis {

// __CUDA_ARCH__ (what Clang's device pass defines as nvcc's does).
bool isSideMacro(llvm::StringRef name);
// Names whose answer can differ between Clang and nvcc (gcc-preprocessed):
// names reserved for the implementation (__x, _X) but __cplusplus,
// __CUDACC__, __LINE__ and __CUDA_ARCH__; include-guard-shaped names; and
// CUDA_DOUBLE_MATH_FUNCTIONS.
bool isCompilerMacro(llvm::StringRef name);

// One finding, and where it is (for the Clang warning).
struct CompilerBranchSite {
  CompilerBranch branch;
  clang::SourceLocation at;
};

// Watches the preprocessor of one translation unit and appends to `found`
// every main-file test of such a name (#if and #elif as written, #ifdef,
// #ifndef, defined(), the bodies of the file's macros expanded in a
// condition, ## in a condition), every predefined or builtin macro the file
// spells in code, #line, and an #include of the file itself.
void watchCompilerBranches(clang::Preprocessor &preprocessor, std::shared_ptr<std::vector<CompilerBranchSite>> found);

} // namespace cudaperf::analysis
