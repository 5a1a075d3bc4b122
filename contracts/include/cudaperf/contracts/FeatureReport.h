// The feature report of one translation unit (schema cudaperf.features/1).
// Plain data: the analysis fills it, the JSON and text writers print it, the
// daemon and trainer read it back. No Clang type appears here.
#pragma once

#include "cudaperf/contracts/FeatureVector.h"
#include "cudaperf/contracts/StructuralScores.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

inline constexpr const char *kFeatureSchema = "cudaperf.features/1";

enum class MemorySpace { Global, Shared, Local };
enum class AccessKind { Load, Store, Atomic };
enum class BranchClass { Guard, WarpUniform, LaneDivergent, Uniform };
enum class BranchKind { If, For, While, Do, Switch, Conditional, ShortCircuit };
enum class Severity { Note, Warning };

const char *toString(MemorySpace space);
const char *toString(AccessKind kind);
const char *toString(BranchClass branchClass);
const char *toString(BranchKind kind);
const char *toString(StrideClass strideClass);
const char *toString(Severity severity);

struct Diagnostic {
  std::string location; // "file:line:col"
  Severity severity = Severity::Warning;
  std::string rule; // the rule that produced it, e.g. "coalescing"
  std::string message;
  // Where the cause is, when it is elsewhere (the thread-dependent condition
  // a barrier sits under, the shared array a conflicting access indexes).
  std::string noteLocation, noteMessage;
};

struct MemoryAccess {
  std::string location;
  MemorySpace space = MemorySpace::Global;
  AccessKind kind = AccessKind::Load;
  std::string variable;     // the memory object (pointer parameter, shared array)
  std::string expression;   // the address as written
  unsigned accessBytes = 0; // size of the scalar or vector actually moved
  StrideClass strideClass = StrideClass::Unknown;
  std::int64_t stride = 0; // elements of accessBytes between neighbouring lanes
  std::int64_t strideBytes = 0;
  std::string strideExpr;                   // symbolic coefficient as written, e.g. "C"
  double score = 0;                         // coalescing score (global accesses)
  std::optional<unsigned> bankConflictWays; // shared accesses with a known stride
  unsigned loopDepth = 0;
  double weight = 1;            // 8^loopDepth
  bool vectorized = false;      // float2/float4/int4/... in one access
  bool readOnlyCache = false;   // through __ldg
  bool warpCooperative = false; // wmma load/store: the warp moves a tile together
};

struct Branch {
  std::string location;
  BranchKind kind = BranchKind::If;
  BranchClass branchClass = BranchClass::Uniform;
  std::string condition;
  unsigned loopDepth = 0;
  double weight = 1;
};

struct SyncSite {
  std::string location;
  std::string function; // __syncthreads, __syncwarp, cg::sync, ...
  bool underThreadDependentCondition = false;
  unsigned loopDepth = 0;
};

struct AtomicSite {
  std::string location;
  std::string function;
  MemorySpace space = MemorySpace::Global;
  unsigned loopDepth = 0;
};

struct SharedArray {
  std::string name;
  std::string location;
  std::string type;
  std::int64_t bytes = 0; // 0 for extern (dynamic) arrays
  bool dynamic = false;
};

struct SharedMemoryUse {
  std::int64_t staticBytes = 0;
  bool usesDynamic = false;
  std::optional<std::int64_t> dynamicBytes; // from launches with a constant size
  std::vector<SharedArray> arrays;
  unsigned maxBankConflictWays = 1;
};

struct LaunchBounds {
  std::optional<std::int64_t> maxThreadsPerBlock;
  std::optional<std::int64_t> minBlocksPerSM;
};

struct Occupancy {
  std::string arch;
  std::optional<std::int64_t> threadsPerBlock;
  std::string tpbSource; // "launch", "launch_bounds" or "unknown"
  double proxy = 0;      // CudaPerf's occ
  double theoretical = 0;
  unsigned activeBlocksPerSM = 0;
  std::string limiter;
};

// Beyond the paper's eleven: counts of optimisation idioms.
struct Extras {
  unsigned vectorizedAccesses = 0;
  unsigned ldg = 0;
  unsigned restrictPointers = 0;
  unsigned warpShuffles = 0;
  unsigned tensorCoreOps = 0;
  unsigned gridStrideLoops = 0;
  unsigned unrollPragmas = 0;
  unsigned halfArithmetic = 0;
  unsigned bf16Arithmetic = 0;
  unsigned deviceSyncInLoops = 0; // host side, per kernel: syncs in loops that launch it
  unsigned constantLoads = 0;
  double loopWeightedSync = 0;
  double loopWeightedAtomics = 0;
};

struct KernelReport {
  std::string name;
  std::string mangledName; // the symbol nvcc emits ("" for a template pattern)
  std::string location;
  bool templatePattern = false; // analysed uninstantiated (no launch instantiated it)
  FeatureVector features;
  std::vector<MemoryAccess> accesses;
  std::vector<Branch> branches;
  std::vector<SyncSite> syncs;
  std::vector<AtomicSite> atomics;
  SharedMemoryUse shared;
  LaunchBounds launchBounds;
  Occupancy occupancy;
  Extras extras;
  unsigned launchCount = 0;
  std::vector<Diagnostic> diagnostics;
};

struct Dim3 {
  std::optional<std::int64_t> x, y, z;
  std::string expression;
  bool known() const { return x && y && z; }
  std::optional<std::int64_t> product() const {
    return known() ? std::optional<std::int64_t>(*x * *y * *z) : std::nullopt;
  }
};

struct LaunchSite {
  std::string kernel;
  std::string location;
  std::string hostFunction;
  Dim3 grid;
  Dim3 block;
  std::optional<std::int64_t> dynamicSharedBytes;
  bool usesStream = false;
  unsigned loopDepth = 0;
};

// A launch the task's entry makes at the benchmark size (the analysis was
// given the entry and its parameters' values: docs/features.md "blocks").
struct EntryLaunch {
  std::string kernel;
  std::string location;
  std::int64_t blocks = 0;
  std::int64_t threadsPerBlock = 0;
  unsigned loopDepth = 0;
  bool certain = true; // runs once whenever the entry runs; false: under a condition the walk could not decide
};

struct Transfer {
  std::string location;
  std::string function; // cudaMemcpy, cudaMemcpyAsync, cudaMallocManaged, ...
  std::string hostFunction;
  unsigned loopDepth = 0;
  double weight = 1;
};

struct HostSummary {
  std::vector<Transfer> transfers;
  unsigned deviceSyncs = 0;
  unsigned deviceSyncsInLoops = 0;
  unsigned managedAllocations = 0;
  std::vector<std::string> skippedIncludes;
};

// A test or use, in the analysed file, of a macro whose value depends on the
// compiler or on the compilation side (docs/features.md "Compiler
// branches"). The report reads Clang's host pass; the code that runs is
// nvcc's device pass, so such a file may run other code than was read.
struct CompilerBranch {
  std::string macro; // as written: __CUDA_ARCH__, __clang__, ... or "##" (a pasted name in a condition)
  unsigned line = 0;
  // __CUDA_ARCH__: Clang's own device pass defines it as nvcc's does, so the
  // analysis's device pass reads the code that runs. The others (__clang__,
  // __NVCC__, __GNUC__, ...) no Clang pass can read as nvcc does.
  bool side = false;
};

struct TranslationUnitReport {
  std::string schema = kFeatureSchema;
  std::string file;
  std::string arch = "sm_90";
  std::vector<KernelReport> kernels;
  std::vector<LaunchSite> launches;
  std::string entry; // the task's entry the analysis was given (empty: none)
  std::vector<EntryLaunch> entryLaunches;
  std::string entryLaunchesProblem; // why blocks and threads are unknown (a doubt of the walk, none sized)
  // Every launch the entry can make was reached and sized (a doubt, if any, is
  // only whether some of them run): the largest that runs is one of entryLaunches.
  bool entryLaunchesComplete = false;
  HostSummary host;
  FeatureVector features; // aggregated over kernels, see docs/features.md
  std::vector<Diagnostic> diagnostics;
  unsigned errors = 0; // compiler errors in the TU (the kernels that parsed are still reported)
  std::vector<CompilerBranch> compilerBranches;
  // The aggregated features of Clang's device pass of the same source
  // (analyzeSource adds it to every report; the plugin and cudaperf-features do not).
  std::optional<FeatureVector> devicePassFeatures;
};

} // namespace cudaperf
