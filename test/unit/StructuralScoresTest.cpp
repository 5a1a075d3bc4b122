#include "cudaperf/contracts/StructuralScores.h"

#include <gtest/gtest.h>

using namespace cudaperf;

TEST(CoalescingScore, CudaPerfMap) {
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 1), 1.0);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, -1), 1.0);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 2), 0.4);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 3), 0.1);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 4), 0.1);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 5), -0.5);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 32), -0.5);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Constant, 0), 0.2);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Symbolic, 0), -0.5);
  EXPECT_DOUBLE_EQ(coalescingScore(StrideClass::Unknown, 1), 0.0);
}

TEST(OccupancyProxy, CudaPerfBands) {
  EXPECT_DOUBLE_EQ(occupancyProxy(128), 1.0);
  EXPECT_DOUBLE_EQ(occupancyProxy(256), 1.0);
  EXPECT_DOUBLE_EQ(occupancyProxy(64), 0.4);
  EXPECT_DOUBLE_EQ(occupancyProxy(127), 0.4);
  EXPECT_DOUBLE_EQ(occupancyProxy(257), 0.4);
  EXPECT_DOUBLE_EQ(occupancyProxy(512), 0.4);
  EXPECT_DOUBLE_EQ(occupancyProxy(1024), 0.1);
  EXPECT_DOUBLE_EQ(occupancyProxy(32), 0.1);
  EXPECT_DOUBLE_EQ(occupancyProxy(0), 0.1);
}

TEST(LoopSiteWeight, PowersOfEight) {
  EXPECT_DOUBLE_EQ(loopSiteWeight(0), 1.0);
  EXPECT_DOUBLE_EQ(loopSiteWeight(1), 8.0);
  EXPECT_DOUBLE_EQ(loopSiteWeight(2), 64.0);
  EXPECT_DOUBLE_EQ(loopSiteWeight(40), loopSiteWeight(6));
}

TEST(BankConflicts, GcdOfWordStride) {
  EXPECT_EQ(bankConflictDegree(1, 4), 1u);
  EXPECT_EQ(bankConflictDegree(32, 4), 32u);
  EXPECT_EQ(bankConflictDegree(33, 4), 1u);
  EXPECT_EQ(bankConflictDegree(2, 4), 2u);
  EXPECT_EQ(bankConflictDegree(16, 4), 16u);
  EXPECT_EQ(bankConflictDegree(0, 4), 1u);  // broadcast
  EXPECT_EQ(bankConflictDegree(4, 16), 1u); // float4, consecutive
  EXPECT_EQ(bankConflictDegree(2, 8), 1u);  // double, consecutive
  EXPECT_EQ(bankConflictDegree(-32, 4), 32u);
}

TEST(TheoreticalOccupancy, WarpLimited) {
  // 256 threads = 8 warps; 64 warps per SM -> 8 blocks, full occupancy.
  auto estimate = theoreticalOccupancy(archLimits("sm_90"), 256, 0);
  EXPECT_DOUBLE_EQ(estimate.theoretical, 1.0);
  EXPECT_EQ(estimate.activeBlocks, 8u);
  EXPECT_STREQ(estimate.limiter, "warps");
}

TEST(TheoreticalOccupancy, BlockLimitedForTinyBlocks) {
  // 32 threads = 1 warp; at most 32 blocks per SM -> 32/64 warps.
  auto estimate = theoreticalOccupancy(archLimits("sm_90"), 32, 0);
  EXPECT_DOUBLE_EQ(estimate.theoretical, 0.5);
  EXPECT_STREQ(estimate.limiter, "blocks");
}

TEST(TheoreticalOccupancy, SharedMemoryLimited) {
  // sm_80: 167936 B per SM; 48 KiB + 1 KiB reserved per block -> 3 blocks of 8 warps.
  auto estimate = theoreticalOccupancy(archLimits("sm_80"), 256, 48 * 1024);
  EXPECT_EQ(estimate.activeBlocks, 3u);
  EXPECT_DOUBLE_EQ(estimate.theoretical, 24.0 / 64.0);
  EXPECT_STREQ(estimate.limiter, "shared_memory");
  // sm_90: 233472 B per SM -> 4 blocks.
  EXPECT_EQ(theoreticalOccupancy(archLimits("sm_90"), 256, 48 * 1024).activeBlocks, 4u);
}

TEST(TheoreticalOccupancy, RegisterLimited) {
  // 128 regs/thread * 32 = 4096 per warp; 8 warps per block = 32768 -> 2 blocks.
  auto estimate = theoreticalOccupancy(archLimits("sm_90"), 256, 0, 128u);
  EXPECT_EQ(estimate.activeBlocks, 2u);
  EXPECT_STREQ(estimate.limiter, "registers");
}

TEST(TheoreticalOccupancy, RegistersAreAllocatedPerSubPartition) {
  // 104 regs * 32 = 3328 per warp (already a multiple of 256). Each of the 4
  // sub-partitions has 16384 registers: 4 warps there, 16 on the SM. One-warp
  // blocks: 16 of them (the whole-SM division 65536 / 3328 would say 19).
  auto estimate = theoreticalOccupancy(archLimits("sm_90"), 32, 0, 104u);
  EXPECT_EQ(estimate.activeBlocks, 16u);
  EXPECT_DOUBLE_EQ(estimate.theoretical, 16.0 / 64.0);
  EXPECT_STREQ(estimate.limiter, "registers");
  // 26 registers (transpose's tile kernel): 832 -> 1024 per warp, 16 warps per
  // sub-partition, 64 per SM: the registers do not limit 256-thread blocks.
  EXPECT_STREQ(theoreticalOccupancy(archLimits("sm_90"), 256, 4224, 26u).limiter, "warps");
  // More than 255 per thread cannot launch.
  EXPECT_EQ(theoreticalOccupancy(archLimits("sm_90"), 32, 0, 256u).activeBlocks, 0u);
}

TEST(TheoreticalOccupancy, InvalidConfigurations) {
  EXPECT_STREQ(theoreticalOccupancy(archLimits("sm_90"), 0, 0).limiter, "invalid");
  EXPECT_STREQ(theoreticalOccupancy(archLimits("sm_90"), 2048, 0).limiter, "invalid");
  EXPECT_STREQ(theoreticalOccupancy(archLimits("sm_90"), 128, 1 << 20).limiter, "invalid");
  EXPECT_DOUBLE_EQ(theoreticalOccupancy(archLimits("sm_90"), 0, 0).theoretical, 0.0);
}
