// cudaperfd's settings: defaults, then the JSON config file (--config), then
// command-line flags. docs/api.md lists every key.
#pragma once

#include "cudaperf/contracts/VerifiableReward.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cudaperf {

struct DaemonConfig {
  std::string listenAddress = "127.0.0.1";
  unsigned short port = 8742;
  std::filesystem::path tasksDir = "tasks";
  std::filesystem::path dbFile = "cudaperf.sqlite";
  std::filesystem::path cacheDir = "cudaperf-cache"; // artifacts, reference outputs, compiled references
  std::filesystem::path rankerFile;                  // empty: no structural reward
  std::filesystem::path judge;                       // cudaperf-judge; empty: beside cudaperfd
  std::filesystem::path analysisServer;              // cudaperf-analysis-server; empty: beside cudaperfd
  std::filesystem::path nvcc = "/usr/local/cuda/bin/nvcc";
  std::string arch = "sm_90";
  std::vector<int> gpus;   // empty: GPU 0 when a GPU and cudaperf-run are present
  bool gpusGiven = false;  // --gpus or "gpus" was set (an empty list then means: none)
  unsigned cpuWorkers = 0; // 0: number of cores
  // CPUs set apart for each GPU's judge and its workers, in whole cores (0:
  // none); the rest runs compiles and analyses. Skipped on small machines.
  unsigned judgeCpus = 4;
  unsigned httpThreads = 2;
  std::size_t maxBodyBytes = 1 << 20;
  std::size_t queueCapacity = 256; // evaluations waiting or running; past it: 503
  double requestDeadlineSeconds = 600;
  double idleTimeoutSeconds = 30; // a connection silent this long is closed
  double harnessWallSeconds = 120;
  // false: the judges and their workers run without CUDA (a CPU machine
  // serving host-memory tasks; device tasks then answer no_gpu).
  bool judgeCuda = true;
  unsigned workerBatch = 16; // evaluations of one task the judge takes one after the other
  double baselineMaxAgeSeconds = 300;
  bool pauseStartingWorkers = true; // spare workers still starting: stopped while calls are timed, or waited for    //
                                    // a GPU baseline's timing is reused this long, then timed again
  std::size_t judgeMaxEvaluations = 512; // then the GPU's long-lived judge is replaced by a fresh one
  std::uint64_t seed = 0;                // 0: a fresh secret seed per evaluation; else fixed (development, replay)
  int runs = 30, warmup = 3;
  int minRuns = 10;               // timed calls stop here at the earliest, once the median is pinned down
  double medianHalfWidth = 0.005; // ... its 95 % interval within this fraction of it
  std::string logLevel = "info";
  bool precompiledHeaders = true;        // parse the CUDA headers once for all analyses
  bool prepareTasksAtStart = true;       // with a GPU: compile every task's reference and baseline at start
  std::vector<std::string> analysisArgs; // more Clang flags for every analysis
  double analysisTimeoutSeconds = 10;    // then the analysis server is killed: an error for that request
  std::uint64_t analysisMemoryBytes = 4ull << 30;
  unsigned analysisServers = 0; // 0: as many as CPU workers, at least 2, at most 8
  // Development only: score even where the sandbox cannot isolate (no root,
  // no namespaces); every answer then carries "insecure": true.
  bool insecureNoIsolation = false;
  RewardConfig reward;
  // R_str measured from the task's own baseline kernel (the ranker's score
  // of the candidate less that of baseline.cu): 0 is "as good as the
  // baseline's structure", the same on every task. false: the absolute score.
  bool strRelativeToBaseline = true;
  // R_str of a candidate the analysis cannot read (with a ranker loaded).
  // Below every score the bundled ranker gives a readable kernel (relative
  // scores of the 504 measured sources: -2.62 to 2.66): breaking the
  // analysis never pays.
  double strUnreadable = -4.0;
};

// Throws std::invalid_argument naming the key or flag.
DaemonConfig loadDaemonConfig(const std::filesystem::path &file, DaemonConfig base = {});
// cudaperfd --help: every flag with a line of what it is for.
std::string daemonUsage();
// Applies `--key value` flags (--listen HOST:PORT, --tasks, --db, --gpus 0,1, --cpu-workers, --ranker, ...).
// Returns the config file named by --config, applied first.
DaemonConfig configFromArguments(const std::vector<std::string> &arguments);

} // namespace cudaperf
