// Which CPUs the daemon gives each GPU's judge: CPU lists, the plan on
// machines of several shapes, and pinning on this one.
#include "cudaperf/daemon/CpuPlacement.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using cudaperf::CpuPlacement;
using cudaperf::CpuTopology;
using cudaperf::formatCpuList;
using cudaperf::parseCpuList;
using cudaperf::planCpuPlacement;

namespace {

// `physical` cores of `threads` CPUs each, numbered as Linux does on x86:
// core c has CPUs c, c + physical, ...
CpuTopology machine(int physical, int threads) {
  CpuTopology topology;
  for (int c = 0; c < physical; ++c) {
    std::vector<int> core;
    for (int t = 0; t < threads; ++t)
      core.push_back(c + t * physical);
    topology.cores.push_back(core);
  }
  return topology;
}

std::set<int> asSet(const std::vector<int> &cpus) { return {cpus.begin(), cpus.end()}; }

} // namespace

TEST(CpuList, ParsesTheKernelsSyntax) {
  EXPECT_EQ(parseCpuList("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parseCpuList(" 5\n"), (std::vector<int>{5}));
  EXPECT_EQ(parseCpuList("9,2-3,2"), (std::vector<int>{2, 3, 9})); // sorted, once each
  EXPECT_TRUE(parseCpuList("").empty());
  for (const char *bad : {"3-1", "a", "1,,2", "-4", "1-", "0x3", "99999"})
    EXPECT_THROW(parseCpuList(bad), std::invalid_argument) << bad;
}

TEST(CpuList, FormatsRunsAndIsTheInverse) {
  EXPECT_EQ(formatCpuList({8, 0, 1, 2, 3}), "0-3,8");
  EXPECT_EQ(formatCpuList({4, 6, 5, 10, 12, 11, 20}), "4-6,10-12,20");
  EXPECT_EQ(formatCpuList({7, 7}), "7");
  EXPECT_EQ(formatCpuList({}), "");
  const std::vector<int> cpus = {0, 2, 3, 4, 9, 15, 16};
  EXPECT_EQ(parseCpuList(formatCpuList(cpus)), cpus);
}

TEST(CpuPlacementPlan, OneGpuOnSixteenSmtCpusTakesTwoWholeCores) {
  const CpuPlacement p = planCpuPlacement(machine(8, 2), 1, 4);
  ASSERT_EQ(p.judges.size(), 1u);
  EXPECT_EQ(p.judges[0], (std::vector<int>{6, 7, 14, 15})); // cores 6 and 7 with their siblings
  EXPECT_EQ(p.shared.size(), 12u);
  EXPECT_EQ(formatCpuList(p.shared), "0-5,8-13");
  EXPECT_NE(p.note.find("judge 0 on CPUs 6-7,14-15"), std::string::npos) << p.note;
}

TEST(CpuPlacementPlan, WithoutSmtFourCores) {
  const CpuPlacement p = planCpuPlacement(machine(16, 1), 1, 4);
  ASSERT_EQ(p.judges.size(), 1u);
  EXPECT_EQ(p.judges[0], (std::vector<int>{12, 13, 14, 15}));
  EXPECT_EQ(formatCpuList(p.shared), "0-11");
}

TEST(CpuPlacementPlan, EightGpusGetDisjointSetsAndCompilesKeepTheRest) {
  const CpuTopology topology = machine(64, 2); // 128 CPUs, an 8-GPU host
  const CpuPlacement p = planCpuPlacement(topology, 8, 4);
  ASSERT_EQ(p.judges.size(), 8u);
  std::set<int> seen = asSet(p.shared);
  std::size_t total = p.shared.size();
  for (const auto &judge : p.judges) {
    EXPECT_EQ(judge.size(), 4u);
    total += judge.size();
    for (int cpu : judge)
      EXPECT_TRUE(seen.insert(cpu).second) << "CPU " << cpu << " given twice";
  }
  EXPECT_EQ(total, topology.cpuCount()); // every CPU somewhere, none twice
  EXPECT_EQ(p.shared.size(), 96u);
}

TEST(CpuPlacementPlan, AnOddCountRoundsUpToWholeCores) {
  const CpuPlacement p = planCpuPlacement(machine(8, 2), 1, 3);
  ASSERT_EQ(p.judges.size(), 1u);
  EXPECT_EQ(p.judges[0].size(), 4u); // never half a core: its sibling would run an nvcc
}

TEST(CpuPlacementPlan, PlacedOnlyWhereHalfTheCoresAndTwoStayForCompiles) {
  struct Case {
    CpuTopology topology;
    std::size_t gpus;
    unsigned cpus;
    std::size_t shared; // 0: no placement
    const char *note;
  } cases[] = {
      {machine(2, 1), 1, 4, 0, "too few"},  // this CPU machine: not even 4 CPUs
      {machine(6, 1), 1, 4, 0, "too few"},  // 2 cores left of 6: under half
      {machine(4, 2), 1, 4, 4, "judge 0"},  // 2 cores of 4 left: half, and two
      {machine(16, 1), 8, 4, 0, "too few"}, // 32 CPUs asked of 16
      {machine(16, 1), 8, 1, 8, "judge 7"}, // one core each, 8 of 16 left
      {machine(8, 2), 1, 0, 0, "off"},      // judge_cpus 0
      {machine(8, 2), 0, 4, 0, "no GPU"},   // nothing to set apart for
  };
  for (const Case &c : cases) {
    const CpuPlacement p = planCpuPlacement(c.topology, c.gpus, c.cpus);
    EXPECT_EQ(p.shared.size(), c.shared) << p.note;
    EXPECT_EQ(p.judges.size(), c.shared ? c.gpus : 0u) << p.note;
    EXPECT_NE(p.note.find(c.note), std::string::npos) << p.note;
  }
}

TEST(CpuTopologyHere, EveryAllowedCpuIsInExactlyOneCore) {
  const CpuTopology topology = cudaperf::readCpuTopology();
  const std::vector<int> allowed = cudaperf::currentThreadCpus();
  ASSERT_FALSE(allowed.empty());
  std::set<int> seen;
  for (const auto &core : topology.cores) {
    ASSERT_FALSE(core.empty());
    for (int cpu : core)
      EXPECT_TRUE(seen.insert(cpu).second) << "CPU " << cpu << " in two cores";
  }
  EXPECT_EQ(seen, asSet(allowed));
}

TEST(CpuPinning, AThreadAndAWholeProcessMove) {
  const std::vector<int> allowed = cudaperf::currentThreadCpus();
  ASSERT_FALSE(allowed.empty());
  const std::vector<int> one = {allowed.back()};
  std::thread([&] {
    std::string error;
    ASSERT_TRUE(cudaperf::pinThisThread(one, error)) << error;
    EXPECT_EQ(cudaperf::currentThreadCpus(), one);
  }).join();
  EXPECT_EQ(cudaperf::currentThreadCpus(), allowed); // this thread untouched

  // The whole process, in a child of its own: a second thread started before
  // the move must move too.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    std::atomic<bool> moved = false, checked = false;
    std::thread other([&] {
      while (!moved)
        std::this_thread::yield();
      checked = cudaperf::currentThreadCpus() == one;
    });
    std::string error;
    if (!cudaperf::pinProcess(one, error))
      code = 1;
    moved = true;
    other.join();
    if (!checked)
      code |= 2;
    if (cudaperf::currentThreadCpus() != one)
      code |= 4;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: pinProcess failed, 2: the other thread stayed, 4: the caller stayed";

  std::string error;
  EXPECT_FALSE(cudaperf::pinThisThread({}, error));
  EXPECT_NE(error.find("no CPUs"), std::string::npos);
}
