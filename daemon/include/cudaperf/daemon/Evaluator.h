// The daemon's pipeline for one candidate: analysis and compile in parallel
// on the CPU pool, then (with a GPU) reference outputs from the trusted side
// and execution on the GPU's queue, then the reward, the feedback text and
// the store. Identical requests are answered from the store.
#pragma once

#include "cudaperf/contracts/Ranker.h"
#include "cudaperf/contracts/VerifiableReward.h"
#include "cudaperf/daemon/AnalysisPool.h"
#include "cudaperf/daemon/AnalysisStage.h"
#include "cudaperf/daemon/CandidateCompiler.h"
#include "cudaperf/daemon/DaemonConfig.h"
#include "cudaperf/daemon/EvaluationStore.h"
#include "cudaperf/daemon/GpuQueue.h"
#include "cudaperf/daemon/JudgeRun.h"
#include "cudaperf/daemon/JudgeSession.h"
#include "cudaperf/daemon/Metrics.h"
#include "cudaperf/daemon/ReferenceOutputs.h"
#include "cudaperf/daemon/TaskCatalog.h"

#include <boost/asio/thread_pool.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace cudaperf {

struct EvaluationRequest {
  std::string task;
  std::string source;
  int turn = 1;
};

class Evaluator {
public:
  Evaluator(DaemonConfig config, EvaluationStore &store, TaskCatalog &catalog, CandidateCompiler &compiler,
            Metrics &metrics);
  ~Evaluator();

  // Blocking: call from a thread that may wait (not an I/O thread).
  boost::json::object evaluate(const EvaluationRequest &request);
  // The serialized answer of an identical request answered before, from
  // memory or the store (fast: fine on an I/O thread); nullopt otherwise.
  std::optional<std::string> cachedAnswer(const EvaluationRequest &request);
  // The feature report of the plugin contract, plus r_str with a ranker;
  // with a task's entry, its launches sized at the task's benchmark size.
  // analyze() and a sandboxed compile for ptxas's facts (registers, spills,
  // shared memory) of each kernel, and the occupancy they allow.
  boost::json::object analyzeAndCompile(const std::string &source, const std::string &fileName, const std::string &arch,
                                        const EntryBinding &entry = {}, const TaskSpec *task = nullptr);
  // task: the task the source is scored against, where the ranker reads a
  // candidate relative to its task's baseline (none: such a ranker gives no r_str).
  boost::json::object analyze(const std::string &source, const std::string &fileName, const std::string &arch,
                              const EntryBinding &entry = {}, const TaskSpec *task = nullptr);

  bool analysisAvailable() const;
  // Not empty when this daemon refuses to score (no isolation): why.
  const std::string &scoringRefusal() const { return isolationProblem_; }
  const std::string &buildId() const { return buildId_; }
  bool gpuAvailable() const { return !gpus_.empty(); }
  std::size_t inFlight() const { return inFlight_.load(); }
  // Loads (or reloads, on SIGHUP) the ranker; on error the previous one stays.
  std::string reloadRanker();
  bool rankerLoaded() const;
  const DaemonConfig &config() const { return config_; }

private:
  // The store's answer to a request key, unless it is a machine's verdict (harness_error, a GPU
  // daemon's no_gpu): never stored by this build, whose keys name it, so a defence only, for a row
  // put there by other means; such a request is judged afresh every time, and the row stays.
  std::optional<std::pair<std::int64_t, boost::json::object>> storedAnswer(const std::string &key);
  // storable: false where the answer must not be kept (R_str's reference was missing).
  boost::json::object compute(const EvaluationRequest &request, const PreparedTask &task, const std::string &key,
                              bool &storable);
  struct RankerScore {
    std::optional<double> score;
    std::string rankerHash; // empty: no ranker loaded
    std::string note;       // why a report with features has no score (the answer's r_str_note)
    // The ranker reads a candidate against its task's baseline and there was
    // none to read it against (a readable candidate): no R_str, and not the
    // candidate's floor. Stored only where the task has no baseline.cu.
    bool baselineMissing = false;
  };
  // The task's baseline.cu as R_str measures from it: its analysis (the
  // reference of a ranker with relativeToBaseline) and its score.
  struct TaskBaseline {
    AnalysisStage analysis;
    double score = 0;
  };
  // Why a ranker that reads candidates against their task's baseline has none: the note says which.
  enum class NoBaseline { NotAnalysed, NoTaskNamed, TaskHasNone };
  // baseline: the task's, where the ranker reads candidates against it; absent: why.
  RankerScore scoreWithRanker(const AnalysisStage &analysis, const AnalysisStage *baseline,
                              NoBaseline absent = NoBaseline::NotAnalysed) const;
  // The analysis without a score (the baseline's own is made against itself).
  boost::json::object analysisReport(const std::string &source, const std::string &fileName, const std::string &arch,
                                     const EntryBinding &entry);
  // The task's baseline.cu analysed for arch and scored by the loaded ranker,
  // cached per task, arch and ranker. nullptr: no baseline, ranker or analysis.
  std::shared_ptr<const TaskBaseline> taskBaseline(const TaskSpec &task, const std::string &rankerHash,
                                                   const std::string &arch);
  bool rankerReadsBaseline() const;
  std::string requestKey(const EvaluationRequest &request, const std::string &taskJson) const;
  std::string rankerHashNow() const;

  DaemonConfig config_;
  EvaluationStore &store_;
  TaskCatalog &catalog_;
  Metrics &metrics_;
  CandidateCompiler &compiler_;
  ReferenceOutputs references_;
  boost::asio::thread_pool cpuPool_;
  std::vector<std::unique_ptr<GpuQueue>> gpus_;
  std::atomic<std::size_t> nextGpu_{0}, inFlight_{0};
  mutable std::shared_mutex rankerMutex_;
  std::optional<RankerModel> ranker_;
  std::string rankerHash_;       // of the loaded file: part of the store key
  std::string buildId_;          // of every binary and flag that shapes an answer: part of the store key
  std::string isolationProblem_; // not empty: the sandbox cannot isolate, nothing is scored
  std::unique_ptr<AnalysisPool> analysis_;
  std::mutex baselineScoresMutex_;
  struct BaselineEntry {
    std::string rankerHash;
    std::shared_future<std::shared_ptr<const TaskBaseline>> baseline;
  };
  std::map<std::string, BaselineEntry> baselineScores_; // by task and arch: successes only, once computed
  std::mutex answersMutex_;
  std::unordered_map<std::string, std::string> answers_; // key -> serialized cached answer (bounded)
};

} // namespace cudaperf
