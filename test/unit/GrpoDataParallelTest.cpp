// Data-parallel GRPO over c10d's Gloo group, on the CPU: two processes, each
// rolling out, scoring and training on its share of every step's groups with
// gradients summed over both, give the losses and the weights of one process
// that trains on the combined batch. The ranks are real processes (the
// fixture cudaperf-grpo-rank, started by the launcher of --nproc).
#include "TinyGrpo.h"

#include "cudaperf/trainer/DataParallel.h"
#include "cudaperf/trainer/RankLauncher.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf::trainer;
using namespace tiny_grpo;

namespace {

double largestDifference(const PolicyModel &a, const PolicyModel &b) {
  const auto x = a.parameters(), y = b.parameters();
  EXPECT_EQ(x.size(), y.size());
  double largest = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
    largest = std::max(largest, (x[i] - y[i]).abs().max().item<double>());
  return largest;
}

} // namespace

TEST(GrpoDataParallelTest, TwoGlooProcessesTrainAsOneProcessOnTheCombinedBatch) {
  if (!dataParallelAvailable())
    GTEST_SKIP() << "built without Gloo's headers (libgloo-dev): no process group";
  const fs::path model = makeModel("parallel");
  const fs::path one = model.string() + "-one", two = model.string() + "-two";
  fs::remove_all(one);
  fs::remove_all(two);
  // Three prompts a step: rank 0 owns two groups, rank 1 one (an uneven share).
  ASSERT_EQ(launchRanks(1, CUDAPERF_GRPO_RANK, {model.string(), one.string(), "3"}), 0);
  ASSERT_EQ(launchRanks(2, CUDAPERF_GRPO_RANK, {model.string(), two.string(), "3"}), 0);
  const auto a = readLog(one), b = readLog(two);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u) << "rank 0 alone writes the log, one record a step";
  bool trained = false;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string step = "step " + std::to_string(i + 1);
    EXPECT_EQ(b[i].at("ranks").as_int64(), 2) << step;
    // The same completions (per-row seeds), so the same rewards and counts.
    EXPECT_EQ(a[i].at("generated_tokens").as_int64(), b[i].at("generated_tokens").as_int64()) << step;
    EXPECT_EQ(a[i].at("reward_mean").as_double(), b[i].at("reward_mean").as_double()) << step;
    EXPECT_EQ(a[i].at("trained_completions").as_int64(), b[i].at("trained_completions").as_int64()) << step;
    EXPECT_EQ(a[i].at("trained_tokens").as_double(), b[i].at("trained_tokens").as_double()) << step;
    EXPECT_EQ(a[i].at("daemon_calls").as_int64(), b[i].at("daemon_calls").as_int64()) << step;
    // The same loss and gradient, up to the order of float sums.
    const double loss = a[i].at("loss").as_double();
    EXPECT_NEAR(b[i].at("loss").as_double(), loss, 1e-5 * std::max(1.0, std::abs(loss))) << step;
    const double norm = a[i].at("grad_norm").as_double();
    EXPECT_NEAR(b[i].at("grad_norm").as_double(), norm, 1e-5 * std::max(1.0, norm)) << step;
    trained |= a[i].at("trained_completions").as_int64() > 0 && norm > 0;
  }
  EXPECT_TRUE(trained) << "no step trained: the comparison proves nothing";
  // The same weights after three steps (rank 0's checkpoint).
  const auto x = PolicyModel::load((one / "step-3").string(), torch::kCPU, torch::kFloat32);
  const auto y = PolicyModel::load((two / "step-3").string(), torch::kCPU, torch::kFloat32);
  const auto start = PolicyModel::load(model.string(), torch::kCPU, torch::kFloat32);
  EXPECT_GT(largestDifference(x, start), 1e-4) << "the weights moved";
  EXPECT_LT(largestDifference(x, y), 1e-5);
  for (const auto &dir : {model, one, two})
    fs::remove_all(dir);
}

TEST(GrpoDataParallelTest, TheEnvironmentSaysWhereARankStands) {
  ::unsetenv("WORLD_SIZE");
  EXPECT_FALSE(ProcessPlace::fromEnvironment()); // one process
  ::setenv("WORLD_SIZE", "4", 1);
  ::setenv("RANK", "2", 1);
  ::setenv("MASTER_PORT", "29600", 1);
  ::unsetenv("LOCAL_RANK");
  ::unsetenv("MASTER_ADDR");
  const auto place = ProcessPlace::fromEnvironment();
  ASSERT_TRUE(place);
  EXPECT_EQ(place->rank, 2);
  EXPECT_EQ(place->worldSize, 4);
  EXPECT_EQ(place->localRank, 2); // LOCAL_RANK defaults to RANK (one host)
  EXPECT_EQ(place->masterAddress, "127.0.0.1");
  EXPECT_EQ(place->masterPort, 29600);
  ::setenv("RANK", "4", 1);
  EXPECT_THROW(ProcessPlace::fromEnvironment(), std::invalid_argument); // past the last rank
  ::setenv("RANK", "two", 1);
  EXPECT_THROW(ProcessPlace::fromEnvironment(), std::invalid_argument);
  for (const char *name : {"WORLD_SIZE", "RANK", "MASTER_PORT"})
    ::unsetenv(name);
}

TEST(GrpoDataParallelTest, TheLauncherDropsItsOwnFlagAndReportsAFailingRank) {
  EXPECT_EQ(withoutFlag({"--config", "a.json", "--nproc", "2", "--steps", "3"}, "--nproc"),
            (std::vector<std::string>{"--config", "a.json", "--steps", "3"}));
  EXPECT_EQ(withoutFlag({"--nproc=2", "--config", "a.json"}, "--nproc"),
            (std::vector<std::string>{"--config", "a.json"}));
  // Each rank sees its variables; the first failure is the launcher's status.
  EXPECT_EQ(launchRanks(3, "/bin/sh", {"-c", "test \"$WORLD_SIZE\" = 3 && test \"$RANK\" = \"$LOCAL_RANK\""}), 0);
  EXPECT_EQ(launchRanks(2, "/bin/sh", {"-c", "exit $((RANK * 7))"}), 7);
  // A failing rank stops the others (they would wait for it in a collective).
  const auto start = std::chrono::steady_clock::now();
  // (exec: the signal reaches the sleeping rank itself, and no orphan keeps the test's output open.)
  EXPECT_EQ(launchRanks(2, "/bin/sh", {"-c", "if [ \"$RANK\" = 1 ]; then exit 3; fi; exec sleep 60"}), 3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}
