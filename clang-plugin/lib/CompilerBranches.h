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

// __CUDA_ARCH__ and its family (__CUDA_ARCH_LIST__, __CUDA_ARCH_FEAT_SM90_ALL, ...).
bool isSideMacro(llvm::StringRef name);
// Macros, and preprocessor queries, whose answer differs between Clang and
// nvcc: __clang__ and __clang_*, __llvm__, __CUDA__, __NVCC__, __CUDACC_*
// (but __CUDACC__, which both define), __NVCOMPILER*, __HIP*, __has_builtin,
// __has_feature, ...
bool isCompilerMacro(llvm::StringRef name);

// One finding, and where it is (for the Clang warning).
struct CompilerBranchSite {
  CompilerBranch branch;
  clang::SourceLocation at;
};

// Watches the preprocessor of one translation unit and appends to `found`
// every main-file conditional (#if, #ifdef, #elif, defined()) and every
// main-file expansion that names such a macro, directly, through the body of
// a macro it expands, or as a name pasted with ## inside a condition.
void watchCompilerBranches(clang::Preprocessor &preprocessor, std::shared_ptr<std::vector<CompilerBranchSite>> found);

} // namespace cudaperf::analysis
