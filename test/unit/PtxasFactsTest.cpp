// ptxas's verbose log as nvcc 13.0 prints it, read into facts per kernel.
#include "cudaperf/daemon/PtxasFacts.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

using namespace cudaperf;
namespace json = boost::json;

namespace {

// A template kernel, a kernel calling a noinline device function (whose
// properties ptxas lists too), an extern "C" kernel, as CUDA 13.0 prints them.
const char *kLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Function properties for _Z6helperf
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function '_Z13transposeTilePKfPfii' for 'sm_90'
ptxas info    : Function properties for _Z13transposeTilePKfPfii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 26 registers, used 1 barriers, 4224 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function '_Z6reduceILi256EEvPKfPfi' for 'sm_90'
ptxas info    : Function properties for _Z6reduceILi256EEvPKfPfi
    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'plain_c_kernel' for 'sm_90'
ptxas info    : Function properties for plain_c_kernel
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 368 bytes cmem[0]
ptxas info    : Compile time = 30.215 ms
)";

} // namespace

TEST(PtxasFacts, EachEntryWithItsRegistersSpillsAndSharedMemory) {
  const auto kernels = parsePtxasLog(kLog);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].name, "transposeTile");
  EXPECT_EQ(kernels[0].arch, "sm_90");
  EXPECT_EQ(kernels[0].registers, 26u);
  EXPECT_EQ(kernels[0].barriers, 1u);
  EXPECT_EQ(kernels[0].sharedBytes, 4224u);
  EXPECT_EQ(kernels[0].constantBytes, 384u);
  EXPECT_EQ(kernels[0].spillStores, 0u); // the helper's spills are not the kernel's
  EXPECT_EQ(kernels[1].name, "reduce");  // a template instance, by its template's name
  EXPECT_EQ(kernels[1].registers, 255u);
  EXPECT_EQ(kernels[1].stackBytes, 16u);
  EXPECT_EQ(kernels[1].spillStores, 12u);
  EXPECT_EQ(kernels[1].spillLoads, 8u);
  EXPECT_EQ(kernels[1].sharedBytes, 0u);
  EXPECT_EQ(kernels[2].name, "plain_c_kernel");
  EXPECT_EQ(kernels[2].registers, 8u);
}

TEST(PtxasFacts, ALogWithoutPtxasOrGarbledGivesNoFactsAndNoError) {
  EXPECT_TRUE(parsePtxasLog("").empty());
  EXPECT_TRUE(parsePtxasLog("kernel.cu(3): error: identifier \"x\" is undefined\n").empty());
  const auto garbled = parsePtxasLog("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                                     "ptxas info    : Used 99999999999999999999999 registers\n");
  ASSERT_EQ(garbled.size(), 1u);
  EXPECT_EQ(garbled[0].registers, 0u);
}

TEST(PtxasFacts, OnlyLinesThatStartAsPtxasWritesThemCount) {
  // How gcc echoes a candidate's #warning: the text inside is not a fact.
  const auto kernels = parsePtxasLog(
      "forge.cu:1:2: warning: #warning \"ptxas info    : Compiling entry function 'forged' for 'sm_90'\" [-Wcpp]\n"
      "    1 | #warning \"ptxas info    : Compiling entry function 'forged' for 'sm_90'\"\n");
  EXPECT_TRUE(kernels.empty());
}

TEST(PtxasFacts, OccupancyFromRegistersSharedMemoryAndTheAnalysedBlockSize) {
  const auto kernels = parsePtxasLog(kLog);
  const json::object report = json::parse(R"({"kernels": [
      {"name": "transposeTile", "occupancy": {"threads_per_block": 1024}, "shared": {"dynamic_bytes": null}},
      {"name": "reduce", "occupancy": {"threads_per_block": 256}, "shared": {"dynamic_bytes": 0}}]})")
                                  .as_object();
  const json::array facts = ptxasFactsJson(kernels, &report, "sm_90");
  ASSERT_EQ(facts.size(), 3u);
  // 1024 threads, 26 registers (1024 per warp), 4224 B shared: 2 blocks by warps (64 / 32).
  const auto &tile = facts[0].as_object().at("occupancy").as_object();
  EXPECT_EQ(tile.at("active_blocks_per_sm").as_uint64(), 2u);
  EXPECT_DOUBLE_EQ(tile.at("theoretical").as_double(), 1.0);
  // 255 registers: 8160 -> 8192 per warp, 2 warps per sub-partition, 8 per SM: one 256-thread block.
  const auto &reduce = facts[1].as_object().at("occupancy").as_object();
  EXPECT_EQ(reduce.at("active_blocks_per_sm").as_uint64(), 1u);
  EXPECT_DOUBLE_EQ(reduce.at("theoretical").as_double(), 8.0 / 64.0);
  EXPECT_EQ(reduce.at("limiter").as_string(), "registers");
  // Not in the report (block size unknown): no occupancy, said so.
  const auto &plain = facts[2].as_object().at("occupancy").as_object();
  EXPECT_TRUE(plain.at("theoretical").is_null());
  EXPECT_EQ(plain.at("limiter").as_string(), "unknown");
  EXPECT_EQ(facts[1].as_object().at("spill_stores").as_uint64(), 12u);
}
