#include "cudaperf/daemon/Evaluator.h"

#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/contracts/JsonAccess.h"
#include "cudaperf/contracts/ReportJson.h"
#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/contracts/Utf8Text.h"
#include "cudaperf/daemon/BuildAgreement.h"
#include "cudaperf/daemon/CpuPlacement.h"
#include "cudaperf/daemon/Feedback.h"
#include "cudaperf/daemon/InstalledPaths.h"
#include "cudaperf/daemon/PtxasFacts.h"
#include "cudaperf/daemon/RewardAssembly.h"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

namespace cudaperf {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

} // namespace

namespace {

std::filesystem::path configuredOrCompanion(const std::filesystem::path &configured, const char *name) {
  return configured.empty() ? companionProgram(name) : configured;
}

// A seed nobody can predict, fresh for every evaluation.
std::uint64_t freshSeed() {
  static std::random_device entropy;
  const std::uint64_t seed = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
  return seed ? seed : 1;
}

} // namespace

Evaluator::Evaluator(DaemonConfig config, EvaluationStore &store, TaskCatalog &catalog, CandidateCompiler &compiler,
                     Metrics &metrics)
    : config_(std::move(config)), store_(store), catalog_(catalog), metrics_(metrics), compiler_(compiler),
      references_(config_.cacheDir / "reference-outputs"),
      cpuPool_(config_.cpuWorkers ? config_.cpuWorkers : std::max(1u, std::thread::hardware_concurrency())) {
  const std::filesystem::path judge = configuredOrCompanion(config_.judge, "cudaperf-judge");
  const std::filesystem::path worker = judge.parent_path() / "cudaperf-worker";
  const std::filesystem::path analysisServer =
      configuredOrCompanion(config_.analysisServer, "cudaperf-analysis-server");
  // The task folders are world-readable sources: hidden from the workers. The
  // reference outputs, the compiled references and the store are the
  // daemon's own (mode 0700 folders, a 0600 database), out of nobody's reach.
  const std::vector<std::string> hidden = {std::filesystem::absolute(config_.tasksDir).string(),
                                           std::filesystem::absolute(config_.cacheDir / "reference-outputs").string(),
                                           std::filesystem::absolute(config_.cacheDir / "references").string()};

  // Fail closed: without the sandbox's isolation nothing is scored, unless a
  // developer asked for it explicitly (and every answer then says so).
  {
    sandbox::Request probe;
    probe.argv = {"/bin/true"};
    sandbox::Limits limits;
    limits.hiddenPaths = hidden;
    limits.privateTmpBytes = 1 << 20;
    const sandbox::Result run = sandbox::run(probe, limits);
    if (!run.succeeded() && !config_.insecureNoIsolation)
      isolationProblem_ = "this cudaperfd cannot isolate candidates (" + run.note +
                          "): it refuses to score. Run it as root on a kernel that allows namespaces, or, for "
                          "development only, with --insecure-no-isolation true (every answer is then stamped "
                          "insecure)";
    if (!isolationProblem_.empty())
      spdlog::error("{}", isolationProblem_);
  }

  std::vector<int> gpus = config_.gpus;
  const bool judgeBuilt = std::filesystem::exists(judge) && std::filesystem::exists(worker);
  if (!config_.gpusGiven && std::filesystem::exists("/dev/nvidia0") && judgeBuilt)
    gpus = {0};
  if (!gpus.empty() && !judgeBuilt) {
    spdlog::warn("no judge at {}: evaluations answer no_gpu", judge.string());
    gpus.clear();
  }
  // Each judge on cores of its own, everything else (this process's threads
  // and all they start: compiles, analyses, reference runs) on the rest.
  // All or nothing: a thread left behind could run on a judge's cores.
  const std::vector<int> everyCpu = currentThreadCpus();
  const CpuPlacement placement = planCpuPlacement(readCpuTopology(), gpus.size(), config_.judgeCpus);
  bool placed = false;
  if (!placement.judges.empty()) {
    std::string problem, ignored;
    placed = pinProcess(placement.shared, problem);
    if (placed) {
      spdlog::info("CPU placement: {}", placement.note);
    } else {
      pinProcess(everyCpu, ignored);
      spdlog::warn("CPU placement: the daemon's threads could not be moved ({}); judges share every CPU", problem);
    }
  } else if (!gpus.empty()) {
    spdlog::info("CPU placement: {}", placement.note);
  }
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const int gpu = gpus[g];
    JudgeOptions options;
    if (placed)
      options.cpus = placement.judges[g];
    options.judge = judge;
    options.worker = worker;
    options.wallSeconds = config_.harnessWallSeconds;
    options.cuda = config_.judgeCuda;
    options.baselineMaxAgeSeconds = config_.baselineMaxAgeSeconds;
    options.pauseStartingWorkers = config_.pauseStartingWorkers;
    options.hiddenPaths = hidden;
    options.requireIsolation = !config_.insecureNoIsolation;
    options.environment.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(gpu));
    gpus_.push_back(
        std::make_unique<GpuQueue>(gpu, options, config_.workerBatch, config_.judgeMaxEvaluations, metrics_));
  }
  for (const auto &queue : gpus_) {
    GpuQueue *raw = queue.get();
    metrics_.gauge("cudaperf_gpu_queue_depth_gpu" + std::to_string(raw->gpu()),
                   "Evaluations waiting for GPU " + std::to_string(raw->gpu()) + ".",
                   [raw] { return static_cast<double>(raw->depth()); });
  }
  metrics_.gauge("cudaperf_evaluations_in_flight", "Evaluations accepted and not yet answered.",
                 [this] { return static_cast<double>(inFlight_.load()); });

  if (std::filesystem::exists(analysisServer) && isolationProblem_.empty()) {
    AnalysisPoolOptions options;
    options.server = analysisServer;
    options.extraArgs = config_.analysisArgs;
    options.timeoutSeconds = config_.analysisTimeoutSeconds;
    options.memoryBytes = config_.analysisMemoryBytes;
    const unsigned workers = config_.cpuWorkers ? config_.cpuWorkers : std::thread::hardware_concurrency();
    options.servers = config_.analysisServers ? config_.analysisServers : std::clamp(workers, 2u, 8u);
    options.requireIsolation = !config_.insecureNoIsolation;
    if (config_.precompiledHeaders) {
      // In a folder of their own: the analysis servers see it, and nothing else of the cache.
      const auto folder = std::filesystem::absolute(config_.cacheDir) / "analysis";
      std::filesystem::create_directories(folder);
      // One for each side the analysis reads (the device pass: docs/features.md "Compiler branches").
      for (const bool deviceSide : {false, true}) {
        const std::string side = deviceSide ? "-device" : "";
        const auto file = folder / ("cuda-headers-" + config_.arch + side + ".pch");
        const auto start = Clock::now();
        const std::string problem = buildPrecompiledHeaders(analysisServer, config_.arch, file, deviceSide);
        if (problem.empty()) {
          options.precompiledHeaders[config_.arch + (deviceSide ? ":device" : "")] = file;
          spdlog::info("analysis: CUDA headers precompiled for {}{} in {:.2f} s", config_.arch, side,
                       secondsSince(start));
        } else {
          spdlog::warn("analysis: no precompiled headers for {}{} (every analysis parses them): {}", config_.arch, side,
                       problem);
        }
      }
    }
    analysis_ = std::make_unique<AnalysisPool>(std::move(options));
    metrics_.gauge("cudaperf_analysis_crashes_total", "Analyses that crashed their server (a Clang crash).",
                   [this] { return static_cast<double>(analysis_->crashes()); });
    metrics_.gauge("cudaperf_analysis_timeouts_total", "Analyses stopped at their deadline (a runaway parse).",
                   [this] { return static_cast<double>(analysis_->timeouts()); });
  }

  // Every component that shapes an answer, by content: a rebuilt judge,
  // worker, analysis or daemon never serves an answer of the old build.
  std::vector<std::string> build = {"cudaperf-evaluate-v2", "nvcc " + compiler_.nvccVersion()};
  for (const std::string &flag : compiler_.flags())
    build.push_back(flag);
  std::error_code noLink;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", noLink);
  for (const auto &binary : {self, judge, worker, analysisServer})
    build.push_back(binary.filename().string() + " " + contentKey({fileContents(binary)}));
  for (const auto &arg : config_.analysisArgs)
    build.push_back("analysis " + arg);
  buildId_ = contentKey(build);

  if (!config_.rankerFile.empty()) {
    const std::string problem = reloadRanker();
    if (!problem.empty())
      throw std::invalid_argument(problem);
  }
  // A task's first request otherwise waits for its reference and baseline
  // compiles; done here on the CPU pool, they overlap each other and the
  // first requests (which share a preparation still running).
  if (config_.prepareTasksAtStart && !gpus_.empty())
    for (const auto &task : catalog_.tasks())
      boost::asio::post(cpuPool_, [this, name = task.name] {
        const auto start = Clock::now();
        const PreparedTask prepared = catalog_.prepare(name);
        if (!prepared.error.empty())
          spdlog::warn("task {}: {}", name, prepared.error);
        metrics_.observePhase("prepare", secondsSince(start));
      });
  spdlog::info("evaluator: {} GPU queue(s), analysis {}, ranker {}, build {}{}", gpus_.size(),
               analysisAvailable() ? "in sandboxed servers" : "unavailable", rankerLoaded() ? "loaded" : "none",
               buildId_.substr(0, 12), config_.insecureNoIsolation ? ", INSECURE (no isolation required)" : "");
}

Evaluator::~Evaluator() { cpuPool_.join(); }

bool Evaluator::analysisAvailable() const { return analysis_ != nullptr; }

std::string Evaluator::reloadRanker() {
  if (config_.rankerFile.empty())
    return "no ranker file configured";
  try {
    RankerModel model = loadRanker(config_.rankerFile);
    std::ifstream file(config_.rankerFile);
    std::stringstream text;
    text << file.rdbuf();
    std::unique_lock lock(rankerMutex_);
    ranker_ = std::move(model);
    rankerHash_ = contentKey({text.str()});
    spdlog::info("ranker loaded from {}", config_.rankerFile.string());
    return "";
  } catch (const std::exception &error) {
    spdlog::error("ranker not (re)loaded: {}", error.what());
    return error.what();
  }
}

bool Evaluator::rankerLoaded() const {
  std::shared_lock lock(rankerMutex_);
  return ranker_.has_value();
}

bool Evaluator::rankerReadsBaseline() const {
  std::shared_lock lock(rankerMutex_);
  return ranker_ && ranker_->relativeToBaseline;
}

Evaluator::RankerScore Evaluator::scoreWithRanker(const AnalysisStage &analysis, const AnalysisStage *baseline,
                                                  NoBaseline absent) const {
  std::shared_lock lock(rankerMutex_); // the score and the ranker it came from, read together
  if (!ranker_)
    return {};
  RankerScore scored{std::nullopt, rankerHash_, ""};
  if (!analysis.features)
    return scored;
  // The analysis reads Clang's host pass; the code that runs is nvcc's
  // device pass. Where they can differ, score what cannot be dressed up.
  if (analysis.compilerDependent) {
    const CompilerBranch &branch = *analysis.compilerDependent;
    scored.note = "line " + std::to_string(branch.line) + " tests " +
                  (branch.macro == "##" ? std::string("a macro name pasted with ##") : branch.macro) +
                  ", which Clang and nvcc answer differently: the analysis cannot read the code nvcc builds, so "
                  "R_str is the floor (r_str_unreadable)";
    return scored;
  }
  // The floor's cases first: a source whose code that runs cannot be read is
  // the floor whatever the baseline.
  if (!analysis.devicePassFeatures && analysis.devicePassExpected) {
    scored.note = "the device side of the source (what nvcc builds) could not be analysed: R_str is the floor "
                  "(r_str_unreadable)";
    return scored;
  }
  // A ranker that reads the candidate against its task: the baseline's vector
  // of the same pass (its host pass where it has no device pass of its own).
  const FeatureVector *baselineHost = nullptr, *baselineDevice = nullptr;
  if (ranker_->relativeToBaseline) {
    if (!baseline || !baseline->features) {
      scored.baselineMissing = true;
      scored.note = absent == NoBaseline::NoTaskNamed
                        ? "this ranker scores a kernel against its task's baseline: name the task for an r_str"
                    : absent == NoBaseline::TaskHasNone
                        ? "this ranker scores a kernel against its task's baseline.cu, and this task has none "
                          "(an imported task): no R_str"
                        : "the task's baseline.cu could not be analysed, and this ranker scores a kernel against "
                          "it: no R_str";
      return scored;
    }
    baselineHost = &*baseline->features;
    baselineDevice = baseline->devicePassFeatures ? &*baseline->devicePassFeatures : baselineHost;
  }
  const std::vector<LaunchShape> &launches = analysis.entryLaunchShapes;
  const auto score = [&](const FeatureVector &features, const FeatureVector *reference) {
    return lowestScoreAcrossLaunches(features, launches, [&](const FeatureVector &vector) {
      return rankerScore(*ranker_, rankerFeatures(*ranker_, vector, reference));
    });
  };
  double lowest = score(*analysis.features, baselineHost);
  if (analysis.devicePassFeatures)
    lowest = std::min(lowest, score(*analysis.devicePassFeatures, baselineDevice)); // of the two sides, the lower
  scored.score = lowest;
  return scored;
}

std::shared_ptr<const Evaluator::TaskBaseline>
Evaluator::taskBaseline(const TaskSpec &task, const std::string &rankerHash, const std::string &arch) {
  if (!task.baseline || rankerHash.empty() || !analysis_)
    return nullptr;
  const std::string key = task.name + "@" + arch;
  // An evaluation that began before a reload computes its own, never
  // replacing the loaded ranker's entry with its older one.
  const bool current = rankerHash == rankerHashNow();
  std::shared_future<std::shared_ptr<const TaskBaseline>> known;
  std::promise<std::shared_ptr<const TaskBaseline>> promise;
  bool cached = false;
  {
    // One analysis per task, arch and ranker: the first evaluation of a task
    // computes it, the others of its batch wait for that one.
    std::lock_guard lock(baselineScoresMutex_);
    auto entry = baselineScores_.find(key);
    if (entry != baselineScores_.end() && entry->second.rankerHash == rankerHash) {
      known = entry->second.baseline;
    } else if (current) {
      baselineScores_[key] = {rankerHash, promise.get_future().share()};
      cached = true;
    }
  }
  if (known.valid())
    return known.get();
  std::shared_ptr<TaskBaseline> baseline;
  std::string problem;
  try {
    AnalysisStage analysis = AnalysisStage::fromReport(
        analysisReport(readTextFile(task.baseline->string()), "baseline.cu", arch, EntryBinding::of(task)));
    // Against itself where the ranker reads a baseline: every one of the 11 relative features 0.
    const RankerScore scored = scoreWithRanker(analysis, &analysis);
    if (scored.rankerHash != rankerHash)
      problem = "the ranker was reloaded meanwhile";
    else if (!scored.score)
      problem = scored.note.empty() ? "the analysis gave no features" : scored.note;
    else
      baseline = std::make_shared<TaskBaseline>(TaskBaseline{std::move(analysis), *scored.score});
  } catch (const std::exception &error) {
    problem = error.what();
  }
  promise.set_value(baseline);
  if (!baseline) { // not kept: the next evaluation of the task tries again
    spdlog::warn("task {}: no structural score of its baseline ({}): its answers meanwhile are not stored", task.name,
                 problem);
    if (!cached)
      return baseline;
    std::lock_guard lock(baselineScoresMutex_);
    if (auto entry = baselineScores_.find(key);
        entry != baselineScores_.end() && entry->second.rankerHash == rankerHash)
      baselineScores_.erase(entry);
  }
  return baseline;
}

json::object Evaluator::analyzeAndCompile(const std::string &source, const std::string &fileName,
                                          const std::string &arch, const EntryBinding &entry, const TaskSpec *task) {
  std::promise<json::object> reportPromise;
  auto reportFuture = reportPromise.get_future();
  boost::asio::post(cpuPool_, [&, promise = std::move(reportPromise)]() mutable {
    try {
      promise.set_value(analyze(source, fileName, arch, entry, task));
    } catch (const std::exception &error) {
      promise.set_value(json::object{{"error", error.what()}});
    }
  });
  // Every library allowed: the facts are asked for, not a verdict.
  const CompileResult compiled = compiler_.compile(source, knownLibraries());
  json::object report = reportFuture.get();
  if (report.contains("error"))
    return report;
  report["compile"] = json::object{{"ok", compiled.ok || compiled.rejected},
                                   {"cached", compiled.cached},
                                   {"seconds", compiled.seconds},
                                   {"log", contracts::utf8Tail(compiled.log, 8000)}};
  report["ptxas"] = ptxasFactsJson(compiled.kernels, &report, arch);
  return report;
}

json::object Evaluator::analysisReport(const std::string &source, const std::string &fileName, const std::string &arch,
                                       const EntryBinding &entry) {
  if (!analysis_)
    return {{"error", isolationProblem_.empty()
                          ? "this cudaperfd has no analysis server (built without the Clang development files)"
                          : isolationProblem_}};
  const auto start = Clock::now();
  json::object answer = analysis_->analyze(source, fileName, arch, entry);
  metrics_.observePhase("analysis", secondsSince(start));
  if (!answer.contains("report") || !answer.at("report").is_object())
    return {{"error", answer.contains("error") ? answer.at("error") : json::value("the analysis failed")}};
  return std::move(answer.at("report").as_object());
}

json::object Evaluator::analyze(const std::string &source, const std::string &fileName, const std::string &arch,
                                const EntryBinding &entry, const TaskSpec *task) {
  json::object report = analysisReport(source, fileName, arch, entry);
  if (report.contains("error"))
    return report;
  std::shared_ptr<const TaskBaseline> baseline;
  if (task && rankerReadsBaseline())
    baseline = taskBaseline(*task, rankerHashNow(), arch); // the baseline read for the same arch
  const RankerScore scored =
      scoreWithRanker(AnalysisStage::fromReport(report), baseline ? &baseline->analysis : nullptr,
                      !task            ? NoBaseline::NoTaskNamed
                      : task->baseline ? NoBaseline::NotAnalysed
                                       : NoBaseline::TaskHasNone);
  if (scored.score)
    report["r_str"] = *scored.score;
  else if (!scored.note.empty())
    report["r_str_note"] = scored.note;
  return report;
}

std::string Evaluator::rankerHashNow() const {
  std::shared_lock lock(rankerMutex_);
  return ranker_ ? rankerHash_ : "";
}

std::string Evaluator::requestKey(const EvaluationRequest &request, const std::string &taskJson) const {
  const RewardConfig &r = config_.reward;
  std::ostringstream configuration;
  configuration << config_.arch << ' ' << config_.seed << ' ' << config_.runs << ' ' << config_.warmup << ' '
                << config_.minRuns << ' ' << config_.medianHalfWidth << ' ' << r.alphaComp << ' ' << r.alphaWrong << ' '
                << r.alphaSpeed << ' ' << r.alphaCv << ' ' << r.speedupMin << ' ' << r.speedupMax << ' ' << r.lambdaStr
                << ' ' << (r.baseline == SpeedupBaseline::Cpu ? "cpu" : "gpu") << ' ' << gpuAvailable() << ' '
                << rankerHashNow() << ' ' << (config_.strRelativeToBaseline ? "r_str-baseline" : "r_str-absolute")
                << ' ' << config_.strUnreadable << ' ' << config_.pauseStartingWorkers << ' '
                << (r.structureCreditWhenFailed ? "str-credit-all" : "str-credit-passed");
  // The task's reference.c and baseline.cu too: an edited reference or
  // baseline (outputs, speedups, R_str's reference) never serves an old answer.
  return contentKey({"evaluate-v2", request.task, taskJson, catalog_.sourcesKey(request.task), request.source,
                     configuration.str(), buildId_, config_.insecureNoIsolation ? "insecure" : "isolated"});
}

namespace {

// KernelBench's second number, against torch.compile: the judge's speedup
// against eager times the task's torch_compile.json ratio. Added when an
// answer is served, never stored: the ratio is not in the store's key, and
// a re-timing (or a file added later) must show in answers already stored.
void addTorchCompileSpeedup(json::object &answer, const TaskSpec &task) {
  json::value *timingValue = answer.if_contains("timing");
  if (!timingValue || !timingValue->is_object())
    return;
  json::object &timing = timingValue->as_object();
  timing.erase("speedup_vs_torch_compile");
  timing.erase("torch_compile_over_eager");
  timing.erase("torch_compile_measured_on");
  const json::value *speedup = timing.if_contains("speedup");
  const json::value *source = timing.if_contains("gpu_baseline_source");
  if (!task.torchCompile || !speedup || !speedup->is_number() || !source || *source != "pytorch_eager")
    return;
  timing["speedup_vs_torch_compile"] = speedupAgainstTorchCompile(speedup->to_number<double>(), *task.torchCompile);
  timing["torch_compile_over_eager"] = task.torchCompile->compiledOverEager;
  timing["torch_compile_measured_on"] = task.torchCompile->device; // the ratio is that GPU's
}

} // namespace

std::optional<std::pair<std::int64_t, json::object>> Evaluator::storedAnswer(const std::string &key) {
  auto stored = store_.find(key);
  // A machine's verdict is never served from the store (Evaluator.h).
  if (const json::value *was = stored ? stored->second.if_contains("status") : nullptr;
      was && (*was == "harness_error" || (*was == "no_gpu" && gpuAvailable())))
    return std::nullopt;
  return stored;
}

std::optional<std::string> Evaluator::cachedAnswer(const EvaluationRequest &request) {
  const TaskSpec *spec = catalog_.find(request.task);
  if (!spec)
    return std::nullopt;
  const std::string key = requestKey(request, catalog_.taskJson(request.task));
  {
    std::lock_guard lock(answersMutex_);
    if (auto known = answers_.find(key); known != answers_.end()) {
      metrics_.countCacheHit();
      return known->second;
    }
  }
  auto stored = storedAnswer(key);
  if (!stored)
    return std::nullopt;
  metrics_.countCacheHit();
  stored->second.erase("replay"); // the secret seed stays in the store
  stored->second["id"] = stored->first;
  stored->second["cached"] = true;
  addTorchCompileSpeedup(stored->second, *spec);
  std::string text = json::serialize(stored->second);
  std::lock_guard lock(answersMutex_);
  if (answers_.size() >= 4096)
    answers_.clear(); // a crude bound: the store stays the source of truth
  answers_.emplace(key, text);
  return text;
}

json::object Evaluator::evaluate(const EvaluationRequest &request) {
  ++inFlight_;
  struct Done {
    std::atomic<std::size_t> &count;
    ~Done() { --count; }
  } done{inFlight_};
  const auto prepareStart = Clock::now();
  const PreparedTask task = catalog_.prepare(request.task);
  const double prepareSeconds = secondsSince(prepareStart);
  if (!task.spec)
    return {{"status", "bad_request"}, {"error", task.error}};
  const std::string key = requestKey(request, task.taskJson);
  if (auto served = storedAnswer(key)) {
    metrics_.countCacheHit();
    json::object result = std::move(served->second);
    result.erase("replay"); // the secret seed stays in the store
    result["id"] = served->first;
    result["cached"] = true;
    addTorchCompileSpeedup(result, *task.spec);
    return result;
  }
  metrics_.countCacheMiss();
  if (!task.error.empty())
    return {{"status", "harness_error"}, {"error", task.error}, {"machine_verdict", true}};
  bool storable = true;
  json::object result = compute(request, task, key, storable);
  result["profile"].as_object()["prepare_seconds"] = prepareSeconds;
  if (config_.insecureNoIsolation)
    result["insecure"] = true;
  // The machine's verdicts (no worker, a GPU another process kept busy) are
  // not the answer's: stored, they would stand for it whenever it came again,
  // and a client must not score them (`machine_verdict`). A daemon without a
  // GPU keeps its no_gpu answers (its keys say it has none): unscored facts.
  if (const auto &status = result.at("status"); status == "harness_error" || (status == "no_gpu" && gpuAvailable())) {
    storable = false;
    result["machine_verdict"] = true;
  }
  if (!storable) { // answered, and evaluated afresh next time
    result.erase("replay");
    result["cached"] = false;
    addTorchCompileSpeedup(result, *task.spec);
    return result;
  }
  StoredEvaluation stored;
  stored.key = key;
  stored.task = request.task;
  stored.source = request.source;
  stored.sourceHash = contentKey({request.source});
  stored.status = std::string(result.at("status").as_string());
  stored.gpu = result.contains("gpu") ? json::serialize(result.at("gpu")) : "";
  stored.toolVersions = buildId_;
  stored.result = result;
  const auto storeStart = Clock::now();
  result["id"] = store_.insert(stored);
  metrics_.observePhase("store", secondsSince(storeStart));
  result["profile"].as_object()["store_seconds"] = secondsSince(storeStart);
  result.erase("replay");
  result["cached"] = false;
  addTorchCompileSpeedup(result, *task.spec);
  return result;
}

json::object Evaluator::compute(const EvaluationRequest &request, const PreparedTask &task, const std::string &key,
                                bool &storable) {
  const auto began = Clock::now();
  // Analysis and the reference outputs of this evaluation's secret seed on
  // the CPU pool, in parallel with the compile.
  std::promise<json::object> featuresPromise;
  auto featuresFuture = featuresPromise.get_future();
  double analysisSeconds = 0, referenceSeconds = 0;
  // R_str's reference: the task's baseline.cu, scored by the same ranker as
  // the candidate (once per task and ranker).
  const std::string rankerHash = rankerHashNow();
  const bool relative = config_.strRelativeToBaseline && task.spec->baseline && analysis_ && !rankerHash.empty();
  // A ranker that reads the candidate against the baseline needs the baseline's analysis either way.
  const bool needsBaseline = relative || rankerReadsBaseline();
  std::shared_ptr<const TaskBaseline> baseline;
  std::optional<double> baselineScore;
  boost::asio::post(cpuPool_, [&, promise = std::move(featuresPromise)]() mutable {
    const auto start = Clock::now();
    json::object features;
    try {
      features = analysisReport(request.source, "candidate.cu", config_.arch, EntryBinding::of(*task.spec));
      if (needsBaseline && (baseline = taskBaseline(*task.spec, rankerHash, config_.arch)))
        baselineScore = baseline->score;
    } catch (const std::exception &error) {
      features = json::object{{"error", error.what()}};
    }
    analysisSeconds = secondsSince(start);
    promise.set_value(std::move(features));
  });
  JudgeJob job;
  job.task = task.spec;
  job.taskJson = task.taskJson;
  job.baseline = task.baseline;
  job.reference = task.reference;
  job.runs = config_.runs;
  job.warmup = config_.warmup;
  job.minRuns = config_.minRuns;
  job.medianHalfWidth = config_.medianHalfWidth;
  const std::uint64_t seed = config_.seed ? config_.seed : freshSeed();
  // An imported task's candidates are checked against its eager baseline; the
  // reference's outputs (one fixed seed, cached) are that baseline's own check.
  const std::uint64_t expectedSeed = correctnessFromBaseline(job) ? kBaselineCheckSeed : 0;
  std::promise<std::shared_ptr<const ReferenceData>> referencePromise;
  auto referenceFuture = referencePromise.get_future();
  std::string referenceProblem;
  const bool judged = gpuAvailable();
  if (judged)
    boost::asio::post(cpuPool_, [&, promise = std::move(referencePromise)]() mutable {
      const auto start = Clock::now();
      try {
        if (expectedSeed) {
          // The check seed's expected outputs go to a judge only when it asks (JudgeRun.h): only the CPU
          // baseline is sent. They are made here, once, into the cache, beside the compile, so that the
          // judge's first question does not hold the GPU's queue for the reference's minutes.
          ReferenceData cpuOnly;
          cpuOnly.cpuBaselineMs = references_.cpuBaselineMs(*task.spec, task.taskJson, task.reference);
          const auto trials = static_cast<std::size_t>(job.effectiveTrials());
          if (!config_.cacheDir.empty() &&
              !references_.cached(*task.spec, task.taskJson, task.reference, expectedSeed, trials))
            references_.compute(*task.spec, task.taskJson, task.reference, expectedSeed, trials, false, true);
          promise.set_value(std::make_shared<const ReferenceData>(std::move(cpuOnly)));
        } else {
          // A fixed seed may be cached; a fresh one is used once.
          promise.set_value(std::make_shared<const ReferenceData>(references_.compute(
              *task.spec, task.taskJson, task.reference, seed, job.effectiveTrials(), true, config_.seed != 0)));
        }
      } catch (const std::exception &error) {
        referenceProblem = error.what();
        promise.set_value(nullptr);
      }
      referenceSeconds = secondsSince(start);
      metrics_.observePhase("reference", referenceSeconds);
    });
  const auto compileStart = Clock::now();
  const CompileResult compiled = compiler_.compile(request.source, task.spec->allowedLibraries);
  const double compileSeconds = secondsSince(compileStart);
  metrics_.observePhase("compile", compileSeconds);
  const AnalysisStage analysis = AnalysisStage::fromReport(featuresFuture.get());
  const std::shared_ptr<const ReferenceData> reference = judged ? referenceFuture.get() : nullptr;
  // Where this evaluation's wall time went (docs/api.md, "profile").
  json::object profile{{"compile_seconds", compileSeconds},
                       {"nvcc_seconds", compiled.seconds},
                       {"analysis_seconds", analysisSeconds},
                       {"reference_seconds", referenceSeconds},
                       {"cpu_phases_seconds", secondsSince(began)}};

  json::object result;
  result["task"] = request.task;
  result["turn"] = request.turn;
  result["compile"] = json::object{{"ok", compiled.ok},
                                   {"cached", compiled.cached},
                                   {"seconds", compiled.seconds},
                                   {"log", contracts::utf8Tail(compiled.log, 8000)}};
  if (compiled.rejected) {
    json::array forbidden;
    for (const auto &symbol : compiled.forbidden)
      forbidden.push_back(json::value(symbol));
    result["compile"].as_object()["forbidden"] = forbidden;
  }
  result["features"] = analysis.answerJson();
  // What ptxas says of the code that runs, beside what the analysis reads in the source.
  result["features"].as_object()["ptxas"] =
      ptxasFactsJson(compiled.kernels, analysis.ok() ? &analysis.report : nullptr, config_.arch);
  RankerScore candidateScore = scoreWithRanker(analysis, baseline ? &baseline->analysis : nullptr,
                                               task.spec->baseline ? NoBaseline::NotAnalysed : NoBaseline::TaskHasNone);
  // Checked with or without a baseline to read the candidate against: a missing baseline never spares the floor.
  if ((candidateScore.score || candidateScore.baselineMissing) && compiled.ok)
    if (auto problem = analysisDisagreesWithBuild(analysis.report, compiled.kernels)) {
      // The report describes other code than nvcc built: nothing of it to score.
      candidateScore.score.reset();
      candidateScore.baselineMissing = false;
      candidateScore.note = *problem + ": R_str is the floor (r_str_unreadable)";
    }

  std::string status, error;
  std::optional<JudgeVerdict> verdict;
  JudgedOutcome judgedRun;
  judgedRun.outcome.compiled = compiled.ok;
  if (!compiled.ok) {
    status = compiled.rejected ? "rejected" : "compile_error";
  } else if (!judged) {
    status = "no_gpu";
  } else if (!reference) {
    status = "bad_task";
    error = referenceProblem;
    result["error"] = error;
  } else {
    JudgeCandidate candidate{compiled.library, seed, reference, expectedSeed, nullptr};
    if (expectedSeed)
      candidate.expectedOnRequest = [&, trials = job.effectiveTrials()] { // called while this evaluation waits below
        const auto start = Clock::now();
        auto data = std::make_shared<const ReferenceData>(references_.compute(
            *task.spec, task.taskJson, task.reference, expectedSeed, static_cast<std::size_t>(trials), false, true));
        metrics_.observePhase("reference", secondsSince(start));
        return data;
      };
    job.candidates = {candidate};
    // Several GPUs (--gpus 0,1): the one with the least work waiting.
    std::vector<std::size_t> loads;
    for (const auto &gpu : gpus_)
      loads.push_back(gpu->load());
    GpuQueue &queue = *gpus_[leastLoadedQueue(loads, nextGpu_++)];
    json::object run = queue.submit(job).get();
    if (auto *gpuQueue = run.if_contains("gpu_queue"); gpuQueue && gpuQueue->is_object()) {
      for (const auto &[field, value] : gpuQueue->get_object())
        profile[std::string("gpu_") + std::string(field)] = value;
      run.erase("gpu_queue");
    }
    verdict = JudgeVerdict::fromAnswer(run);
    for (auto &[field, value] : run) // the judge's answer goes out whole (the wire format)
      result[field] = value;
    status = verdict->status;
    error = verdict->error;
    profile["worker_start_seconds"] = verdict->workerStartSeconds;
    profile["correctness_seconds"] = verdict->correctness ? verdict->correctness->seconds : 0.0;
    profile["timing_seconds"] = verdict->timing ? verdict->timing->seconds : 0.0;
    // The rest of the judge's time: its start-up, the task's buffers, the
    // baseline's workers, each worker's trusted start and the library's load.
    for (const char *field : {"judge_startup_seconds", "task_setup_seconds", "baseline_seconds",
                              "trusted_start_seconds", "load_seconds", "worker_run_seconds"})
      profile[field] = verdict->phases.count(field) ? verdict->phases.at(field) : 0.0;
    // The worker run's calls, where the judge's time per call went (LibraryRun::CallPhases).
    for (const char *field :
         {"calibration_seconds", "calls", "call_draw_seconds", "call_prepare_seconds", "call_round_trip_seconds",
          "call_verify_seconds", "call_stop_and_reply_seconds", "call_cpu_read_seconds", "reap_seconds",
          "before_timed_calls_seconds", "gpu_memory_wait_seconds", "gpu_memory_wait_timeouts",
          "gpu_memory_wait_free_bytes", "gpu_memory_wait_rises"})
      if (verdict->phases.count(field))
        profile[field] = verdict->phases.at(field);
    // An imported KernelBench task's speedup is against PyTorch eager whatever speedup_baseline says: its
    // CPU time is the module behind a Python server (a socket round trip per call), not a sequential C
    // program, and KernelBench's own number is against eager.
    RewardConfig rewardConfig = config_.reward;
    if (task.eagerBaseline)
      rewardConfig.baseline = SpeedupBaseline::Gpu;
    judgedRun = judgedOutcome(*verdict, rewardConfig);
    if (judgedRun.speedup && result.contains("timing") && result["timing"].is_object()) {
      json::object &timing = result["timing"].as_object();
      timing["speedup"] = *judgedRun.speedup;
      timing["baseline"] = judgedRun.baseline;
      // What the GPU speedup is against: the task's baseline.cu, or an imported task's PyTorch eager.
      if (judgedRun.baseline == "gpu")
        timing["gpu_baseline_source"] = task.eagerBaseline ? "pytorch_eager" : "baseline.cu";
    }
  }
  result["status"] = status;
  RewardStage reward = assembleReward(status, judgedRun.outcome, std::nullopt, config_.reward);
  if (candidateScore.baselineMissing) {
    // The ranker reads the candidate against a baseline there is not: no
    // R_str. Not stored where the task has one the machine could not analyse
    // (the next may have it); a task without one always answers so.
    setStructuralReward(reward, std::nullopt, std::nullopt, config_.reward);
    reward.rStrNote = candidateScore.note;
    if (task.spec->baseline)
      storable = false;
  } else if (!candidateScore.rankerHash.empty() && analysis_ && !candidateScore.score) {
    // A source the analysis cannot read (a parse error, an #error only
    // Clang sees, a macro bomb past the deadline) has no structure to
    // score: it gets the floor, never the 0 of "as good as the baseline".
    setUnreadableStructuralReward(reward, config_.strUnreadable, config_.reward);
    if (!candidateScore.note.empty())
      reward.rStrNote = candidateScore.note;
  } else if (relative && (!baselineScore || candidateScore.rankerHash != rankerHash)) {
    // The baseline's score is missing (its analysis failed, or the ranker
    // was reloaded meanwhile): R_str absolute, and the answer not stored
    // under a key that says relative.
    setStructuralReward(reward, candidateScore.score, std::nullopt, config_.reward);
    storable = false;
  } else {
    setStructuralReward(reward, candidateScore.score, relative ? baselineScore : std::nullopt, config_.reward);
  }
  result["reward"] = reward.toJson();
  result["key"] = key;
  FeedbackInputs feedback;
  feedback.status = status;
  feedback.error = error;
  feedback.compileLog = compiled.log;
  if (compiled.rejected)
    feedback.forbidden = compiled.forbidden;
  feedback.verdict = verdict ? &*verdict : nullptr;
  feedback.speedup = judgedRun.speedup;
  feedback.baseline = judgedRun.baseline;
  feedback.analysis = &analysis;
  result["feedback"] = feedbackText(feedback);
  result["seconds"] = secondsSince(began);
  profile["total_seconds"] = secondsSince(began);
  result["profile"] = std::move(profile);
  metrics_.observePhase("evaluate", secondsSince(began));
  spdlog::info("evaluate task={} status={} r_total={:.3f} seconds={:.2f}", request.task, status, reward.total,
               secondsSince(began));
  return result;
}

} // namespace cudaperf
