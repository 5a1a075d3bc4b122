#include "cudaperf/contracts/StructuralScores.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace cudaperf {

double coalescingScore(StrideClass strideClass, std::int64_t strideElements) {
  switch (strideClass) {
  case StrideClass::Unknown:
    return 0.0;
  case StrideClass::Symbolic:
    return -0.5;
  case StrideClass::Constant:
    break;
  }
  const std::int64_t stride = strideElements < 0 ? -strideElements : strideElements;
  if (stride == 0)
    return 0.2;
  if (stride == 1)
    return 1.0;
  if (stride == 2)
    return 0.4;
  if (stride <= 4)
    return 0.1;
  return -0.5;
}

double loopSiteWeight(unsigned loopDepth) { return std::pow(8.0, static_cast<double>(std::min(loopDepth, 6u))); }

double occupancyProxy(std::int64_t threadsPerBlock) {
  if (threadsPerBlock >= 128 && threadsPerBlock <= 256)
    return 1.0;
  if ((threadsPerBlock >= 64 && threadsPerBlock < 128) || (threadsPerBlock > 256 && threadsPerBlock <= 512))
    return 0.4;
  return 0.1;
}

unsigned bankConflictDegree(std::int64_t wordStride, unsigned accessBytes) {
  if (wordStride == 0)
    return 1;
  const std::int64_t stride = wordStride < 0 ? -wordStride : wordStride;
  const auto ways = static_cast<unsigned>(std::gcd<std::int64_t, std::int64_t>(stride, 32));
  const unsigned wordsPerAccess = std::max(1u, accessBytes / 4);
  return std::max(1u, ways / wordsPerAccess);
}

namespace {
constexpr ArchLimits kSm80{"sm_80", 64, 32, 1024, 167936, 166912, 1024, 65536, 256};
constexpr ArchLimits kSm90{"sm_90", 64, 32, 1024, 233472, 232448, 1024, 65536, 256};
} // namespace

bool isKnownArch(const char *arch) {
  return arch && (std::strcmp(arch, "sm_80") == 0 || std::strcmp(arch, "sm_90") == 0);
}

const ArchLimits &archLimits(const char *arch) {
  if (arch && std::strcmp(arch, "sm_80") == 0)
    return kSm80;
  return kSm90;
}

OccupancyEstimate theoreticalOccupancy(const ArchLimits &arch, std::int64_t threadsPerBlock,
                                       std::int64_t sharedBytesPerBlock, std::optional<unsigned> registersPerThread) {
  OccupancyEstimate estimate;
  if (threadsPerBlock <= 0 || threadsPerBlock > arch.maxThreadsPerBlock || sharedBytesPerBlock < 0 ||
      sharedBytesPerBlock > arch.sharedPerBlockMax) {
    estimate.limiter = "invalid";
    return estimate;
  }
  const auto warpsPerBlock = static_cast<unsigned>((threadsPerBlock + 31) / 32);
  unsigned blocks = arch.maxBlocksPerSM;
  estimate.limiter = "blocks";

  const unsigned byWarps = arch.maxWarpsPerSM / warpsPerBlock;
  if (byWarps < blocks) {
    blocks = byWarps;
    estimate.limiter = "warps";
  }
  if (sharedBytesPerBlock > 0) {
    const auto perBlock = static_cast<unsigned>(sharedBytesPerBlock) + arch.sharedReservedPerBlock;
    const unsigned byShared = arch.sharedPerSM / perBlock;
    if (byShared < blocks) {
      blocks = byShared;
      estimate.limiter = "shared_memory";
    }
  }
  if (registersPerThread && *registersPerThread > 0) {
    // As cuda_occupancy.h: registers are allocated per warp (rounded to the
    // allocation unit) inside each of the SM's 4 sub-partitions, and a block
    // must also fit the per-block limit with its warps rounded up to 4.
    const unsigned unit = arch.registerAllocationUnit;
    const unsigned perWarp = ((*registersPerThread * 32 + unit - 1) / unit) * unit;
    constexpr unsigned subPartitions = 4;
    const unsigned warpsBySubPartition = (arch.registersPerSM / subPartitions) / perWarp * subPartitions;
    const unsigned roundedWarps = (warpsPerBlock + subPartitions - 1) / subPartitions * subPartitions;
    const bool fits = *registersPerThread <= 255 && perWarp * roundedWarps <= arch.registersPerSM;
    const unsigned byRegisters = fits ? warpsBySubPartition / warpsPerBlock : 0;
    if (byRegisters < blocks) {
      blocks = byRegisters;
      estimate.limiter = "registers";
    }
  }
  estimate.activeBlocks = blocks;
  estimate.theoretical = static_cast<double>(blocks * warpsPerBlock) / static_cast<double>(arch.maxWarpsPerSM);
  return estimate;
}

} // namespace cudaperf
