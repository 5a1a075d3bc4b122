// cudaperfd's settings: defaults, config file, flags, and errors naming the key.
#include "cudaperf/daemon/DaemonConfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cudaperf;

namespace {

std::string messageOf(const std::vector<std::string> &args) {
  try {
    configFromArguments(args);
  } catch (const std::invalid_argument &error) {
    return error.what();
  }
  return "accepted";
}

} // namespace

TEST(DaemonConfig, FlagsOverrideDefaults) {
  const DaemonConfig config = configFromArguments({"--listen",
                                                   "0.0.0.0:9000",
                                                   "--gpus",
                                                   "0,1",
                                                   "--cpu-workers",
                                                   "4",
                                                   "--lambda-str",
                                                   "0.5",
                                                   "--speedup-baseline",
                                                   "gpu",
                                                   "--precompiled-headers",
                                                   "false",
                                                   "--judge-cpus",
                                                   "0",
                                                   "--min-runs",
                                                   "15",
                                                   "--median-half-width",
                                                   "0.01",
                                                   "--judge-device",
                                                   "none"});
  EXPECT_EQ(config.listenAddress, "0.0.0.0");
  EXPECT_EQ(config.port, 9000);
  EXPECT_EQ(config.gpus, (std::vector<int>{0, 1}));
  EXPECT_TRUE(config.gpusGiven);
  EXPECT_EQ(config.cpuWorkers, 4u);
  EXPECT_EQ(config.judgeCpus, 0u);
  EXPECT_DOUBLE_EQ(config.reward.lambdaStr, 0.5);
  EXPECT_EQ(config.reward.baseline, SpeedupBaseline::Gpu);
  EXPECT_FALSE(config.precompiledHeaders);
  EXPECT_FALSE(config.judgeCuda);
  EXPECT_TRUE(DaemonConfig{}.judgeCuda);
  EXPECT_EQ(config.maxBodyBytes, 1u << 20); // untouched default
  EXPECT_EQ(DaemonConfig{}.judgeCpus, 4u);
  EXPECT_EQ(config.minRuns, 15);
  EXPECT_DOUBLE_EQ(config.medianHalfWidth, 0.01);
  EXPECT_EQ(DaemonConfig{}.minRuns, 10);
  EXPECT_DOUBLE_EQ(DaemonConfig{}.medianHalfWidth, 0.005);
}

TEST(DaemonConfig, FileThenFlags) {
  const std::string file = "/tmp/cudaperfd-config-test-" + std::to_string(getpid()) + ".json";
  std::ofstream(file) << R"({"listen": "127.0.0.1:7000", "queue_capacity": 8, "reward": {"alpha_cv": 1.5},
                            "gpus": [], "baseline_max_age_seconds": 60})";
  const DaemonConfig config =
      configFromArguments({"--config", file, "--queue-capacity", "16", "--judge-max-evaluations", "64"});
  std::remove(file.c_str());
  EXPECT_EQ(config.port, 7000);
  EXPECT_EQ(config.queueCapacity, 16u); // the flag wins
  EXPECT_DOUBLE_EQ(config.reward.alphaCv, 1.5);
  EXPECT_TRUE(config.gpus.empty());
  EXPECT_TRUE(config.gpusGiven); // an empty list means: no GPU
  EXPECT_DOUBLE_EQ(config.baselineMaxAgeSeconds, 60);
  EXPECT_EQ(config.judgeMaxEvaluations, 64u);
}

TEST(DaemonConfig, ErrorsNameTheKey) {
  EXPECT_NE(messageOf({"--listen", "nonsense"}).find("--listen"), std::string::npos);
  EXPECT_NE(messageOf({"--queue-capacity", "-3"}).find("must be positive"), std::string::npos);
  EXPECT_NE(messageOf({"--no-such-setting", "1"}).find("unknown arguments '--no-such-setting' '1'"), std::string::npos);
  EXPECT_NE(messageOf({"--tasks", "t", "stray"}).find("unknown argument 'stray'"), std::string::npos);
  EXPECT_NE(messageOf({"--gpus", "0,x"}).find("'x' is not a GPU index"), std::string::npos);
  EXPECT_NE(messageOf({"--log-level", "loud"}).find("--log-level"), std::string::npos);
  EXPECT_NE(messageOf({"--tasks"}).find("--tasks"), std::string::npos);
  EXPECT_NE(messageOf({"--seed", "many"}).find("flag --seed: must be a number, got 'many'"), std::string::npos);
  EXPECT_NE(messageOf({"--precompiled-headers", "yes"}).find("must be true or false"), std::string::npos);
  EXPECT_NE(messageOf({"--judge-cpus", "-1"}).find("from 0 to 1024"), std::string::npos);
  EXPECT_NE(messageOf({"--judge-cpus", "2.5"}).find("--judge-cpus"), std::string::npos);
  EXPECT_NE(messageOf({"--median-half-width", "1.5"}).find("[0, 1)"), std::string::npos);
  EXPECT_NE(messageOf({"--judge-device", "gpu"}).find("--judge-device"), std::string::npos);
  EXPECT_NE(messageOf({"--median-half-width", "-0.1"}).find("--median-half-width"), std::string::npos);
  EXPECT_NE(messageOf({"--min-runs", "0"}).find("must be positive"), std::string::npos);
  // A negative weight would turn a failure's structural cost into a bonus.
  EXPECT_NE(messageOf({"--lambda-str", "-0.5"}).find("must be 0 or more"), std::string::npos);
  EXPECT_EQ(messageOf({"--lambda-str", "0"}).find("lambda"), std::string::npos);
  EXPECT_NE(messageOf({"--config", "/nonexistent/cudaperfd.json"}).find("cannot read"), std::string::npos);
}

// The sandboxed compiles and the harness run in other directories: a relative
// path given to the daemon must reach them resolved.
TEST(DaemonConfig, RelativePathsAreResolvedAtStart) {
  const DaemonConfig config = configFromArguments({"--cache", "build/cache", "--db", "store.sqlite"});
  EXPECT_EQ(config.cacheDir, (std::filesystem::current_path() / "build/cache").string());
  EXPECT_EQ(config.dbFile, (std::filesystem::current_path() / "store.sqlite").string());
  EXPECT_EQ(configFromArguments({"--tasks", "/srv/tasks"}).tasksDir, "/srv/tasks");
  EXPECT_EQ(configFromArguments({}).tasksDir, std::filesystem::current_path() / "tasks"); // the default too
  EXPECT_TRUE(configFromArguments({}).rankerFile.empty());
}

TEST(DaemonConfig, SeveralConfigFilesApplyInTurnThenTheFlags) {
  const std::string a = "/tmp/cudaperfd-config-a-" + std::to_string(getpid()) + ".json";
  const std::string b = "/tmp/cudaperfd-config-b-" + std::to_string(getpid()) + ".json";
  std::ofstream(a) << R"({"runs": 20, "warmup": 5})";
  std::ofstream(b) << R"({"runs": 25})";
  const DaemonConfig config = configFromArguments({"--warmup", "7", "--config", a, "--config", b});
  std::remove(a.c_str());
  std::remove(b.c_str());
  EXPECT_EQ(config.runs, 25);  // the second file over the first
  EXPECT_EQ(config.warmup, 7); // a flag over both, wherever it stands
}

TEST(DaemonConfig, AFileKeyNobodyKnowsIsRefusedByName) {
  const std::string file = "/tmp/cudaperfd-config-unknown-" + std::to_string(getpid()) + ".json";
  std::ofstream(file) << R"({"queue_capacity": 8, "qeue_capacity": 9})";
  const std::string message = messageOf({"--config", file});
  std::ofstream(file) << R"({"runs": "thirty"})";
  const std::string typed = messageOf({"--config", file});
  std::ofstream(file) << R"({"analysis_args": ["-DX", 3]})";
  const std::string listed = messageOf({"--config", file});
  std::remove(file.c_str());
  EXPECT_NE(message.find(": key qeue_capacity: unknown setting 'qeue_capacity'"), std::string::npos) << message;
  EXPECT_NE(typed.find(": key runs: must be a number"), std::string::npos) << typed;
  EXPECT_NE(listed.find(": key analysis_args: must be a string"), std::string::npos) << listed;
}

// Flags apply in the order given: a later one wins, --analysis-args adds one
// each time, a key may be spelt with underscores.
TEST(DaemonConfig, FlagsApplyInTheirOrder) {
  const DaemonConfig config = configFromArguments(
      {"--runs", "20", "--analysis-args", "-DA", "--runs", "25", "--analysis_args", "-DB", "--queue_capacity", "7"});
  EXPECT_EQ(config.runs, 25);
  EXPECT_EQ(config.analysisArgs, (std::vector<std::string>{"-DA", "-DB"}));
  EXPECT_EQ(config.queueCapacity, 7u);
  EXPECT_EQ(configFromArguments({"--gpus", ""}).gpus, std::vector<int>{});
  EXPECT_TRUE(configFromArguments({"--gpus", ""}).gpusGiven);
}

TEST(DaemonConfig, HelpListsEverySettingAsAFlag) {
  const std::string help = daemonUsage();
  for (const char *flag : {"--config", "--listen", "--gpus", "--judge-max-evaluations", "--median-half-width",
                           "--speedup-baseline", "--lambda-str", "--insecure-no-isolation"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  EXPECT_NE(help.find("cudaperfd export"), std::string::npos);
}
