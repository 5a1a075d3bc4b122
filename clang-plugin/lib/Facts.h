// Raw facts the AST walkers collect about kernels and host code, before the
// feature rules score them. Addresses are kept as polynomials so every rule
// can ask its own question of them (stride across lanes, bank, ...).
#pragma once

#include "Polynomial.h"
#include "cudaperf/contracts/FeatureReport.h"

#include <clang/AST/Decl.h>
#include <clang/Basic/SourceLocation.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::analysis {

struct AccessFact {
  clang::SourceLocation loc;
  MemorySpace space = MemorySpace::Global;
  AccessKind kind = AccessKind::Load;
  std::string variable;
  std::string expression;
  unsigned bytes = 0;
  Polynomial byteOffset; // address relative to the memory object, in bytes
  unsigned loopDepth = 0;
  double tripWeight = 1; // product of the trip counts of the enclosing loops
  bool vectorized = false;
  bool readOnlyCache = false;
  bool warpCooperative = false;
};

struct BranchFact {
  clang::SourceLocation loc;
  BranchKind kind = BranchKind::If;
  std::string condition;
  Variance variance = Variance::Uniform;
  bool boundsGuard = false; // compares a global thread index with a problem size
  unsigned loopDepth = 0;
};

struct SyncFact {
  clang::SourceLocation loc;
  std::string function;
  bool underThreadDependentCondition = false;
  bool afterThreadDependentExit = false;
  clang::SourceLocation causeLoc; // the thread-dependent condition it sits under, or of the early return
  unsigned loopDepth = 0;
  double tripWeight = 1;
};

struct AtomicFact {
  clang::SourceLocation loc;
  std::string function;
  MemorySpace space = MemorySpace::Global;
  unsigned loopDepth = 0;
  double tripWeight = 1;
};

struct SharedDeclFact {
  const clang::VarDecl *decl = nullptr;
  clang::SourceLocation loc;
  std::string name;
  std::string type;
  std::int64_t bytes = 0;
  bool dynamic = false;
};

struct KernelFacts {
  const clang::FunctionDecl *decl = nullptr;
  std::string name;
  std::string mangledName; // as the compilers emit the kernel; empty for a template pattern
  clang::SourceLocation loc;
  bool templatePattern = false;
  std::vector<AccessFact> accesses;
  std::vector<BranchFact> branches;
  std::vector<SyncFact> syncs;
  std::vector<AtomicFact> atomics;
  std::vector<SharedDeclFact> sharedDecls;
  double weightedOps = 0;
  unsigned halfOps = 0;
  unsigned bf16Ops = 0;
  unsigned warpShuffles = 0;
  unsigned tensorCoreOps = 0;
  unsigned gridStrideLoops = 0;
  unsigned unrollPragmas = 0;
  unsigned constantLoads = 0;
  unsigned restrictPointers = 0;
  LaunchBounds launchBounds;
  bool budgetExhausted = false; // the walk stopped early on a pathological body
};

struct LaunchFact {
  const clang::FunctionDecl *kernel = nullptr; // canonical declaration
  std::string kernelName;
  clang::SourceLocation loc;
  std::string hostFunction;
  Dim3 grid;
  Dim3 block;
  std::optional<std::int64_t> dynamicSharedBytes;
  bool usesStream = false;
  unsigned loopDepth = 0;
  unsigned order = 0; // position among host events of its function
};

// A launch reached from the task's entry with its parameters bound to the
// benchmark size (EntryLaunches.h), whose grid and block evaluated.
struct EntryLaunchFact {
  const clang::FunctionDecl *kernel = nullptr; // canonical declaration
  std::string kernelName;
  clang::SourceLocation loc;
  std::int64_t blocks = 0;          // grid.x * grid.y * grid.z
  std::int64_t threadsPerBlock = 0; // block.x * block.y * block.z
  unsigned loopDepth = 0;           // loops around it, in the entry and the launchers it called
  bool certain = true;              // runs once whenever the entry runs (under no condition the walk left open)
};

struct TransferFact {
  clang::SourceLocation loc;
  std::string function;
  std::string hostFunction;
  unsigned loopDepth = 0;
  unsigned order = 0;
  bool managed = false;
};

struct DeviceSyncFact {
  clang::SourceLocation loc;
  std::string hostFunction;
  unsigned loopDepth = 0;
  unsigned order = 0;
};

struct TranslationUnitFacts {
  SymbolTable symbols;
  std::vector<KernelFacts> kernels;
  std::vector<LaunchFact> launches;
  std::vector<EntryLaunchFact> entryLaunches;
  // Why no entry launch could be sized: no entry asked for, or what was missing.
  std::string entryLaunchesProblem;
  // Every launch the entry can make was reached and sized: the only doubt is
  // whether (or how often) some of them run. One of entryLaunches then stands
  // for the file, whichever runs.
  bool entryLaunchesComplete = false;
  std::vector<TransferFact> transfers;
  std::vector<DeviceSyncFact> deviceSyncs;
  std::vector<std::string> skippedIncludes;
};

} // namespace cudaperf::analysis
