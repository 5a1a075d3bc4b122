// CudaPerf's hand mappings from static structure to scores (Appendix A of the
// paper), plus the bank-conflict and loop-weight rules of docs/features.md.
// The analysis computes features with these; the ranker's hand-mapping
// baseline reuses them, so each rule is written once.
#pragma once

#include <cstdint>
#include <optional>

namespace cudaperf {

// How the address of an access moves between neighbouring lanes (threadIdx.x).
enum class StrideClass {
  Constant, // stride known as an integer number of elements (0 = broadcast)
  Symbolic, // a thread-invariant but unknown coefficient, e.g. a row length
  Unknown,  // non-affine or data-dependent (indirect gathers)
};

// Coalescing score of one global access: stride 1 -> 1.0, 2 -> 0.4,
// 3 or 4 -> 0.1, > 4 (or symbolic) -> -0.5, 0 -> 0.2, unknown -> 0.0.
double coalescingScore(StrideClass strideClass, std::int64_t strideElements);

// Access sites inside loops count more: weight 8^depth (depth capped at 6).
double loopSiteWeight(unsigned loopDepth);

// Trip count assumed for a loop whose bound is not a compile-time constant.
inline constexpr double kDefaultTripCount = 8.0;

// CudaPerf occupancy proxy: 128..256 threads -> 1.0, 64..127 or 257..512 -> 0.4,
// anything else (including unknown, 0) -> 0.1.
double occupancyProxy(std::int64_t threadsPerBlock);

// Ways of a shared-memory bank conflict for an access whose address moves by
// `wordStride` 4-byte words between lanes: gcd(stride, 32), divided by the words
// each access already covers (8- and 16-byte accesses are split by hardware).
// A stride of 0 is a broadcast (1 way).
unsigned bankConflictDegree(std::int64_t wordStride, unsigned accessBytes);

struct OccupancyEstimate {
  double theoretical = 0;    // active warps / max warps per SM
  unsigned activeBlocks = 0; // resident blocks per SM
  const char *limiter = "";  // "warps", "blocks", "shared_memory", "registers", "invalid"
};

struct ArchLimits {
  const char *name;
  unsigned maxWarpsPerSM;
  unsigned maxBlocksPerSM;
  unsigned maxThreadsPerBlock;
  unsigned sharedPerSM;       // bytes usable by blocks on one SM
  unsigned sharedPerBlockMax; // bytes one block may use (opt-in maximum)
  unsigned sharedReservedPerBlock;
  unsigned registersPerSM;
  unsigned registerAllocationUnit; // registers are allocated per warp in these units
};

// Limits of sm_80 (A100) and sm_90 (H100/H200); other names fall back to sm_90.
const ArchLimits &archLimits(const char *arch);
bool isKnownArch(const char *arch);

// Theoretical occupancy as the CUDA occupancy calculator computes it, from
// threads per block, shared bytes per block and (when known) registers per thread.
OccupancyEstimate theoreticalOccupancy(const ArchLimits &arch, std::int64_t threadsPerBlock,
                                       std::int64_t sharedBytesPerBlock,
                                       std::optional<unsigned> registersPerThread = std::nullopt);

} // namespace cudaperf
