#include "cudaperf/daemon/Evaluator.h"

#include "cudaperf/contracts/ReportJson.h"

#ifdef CUDAPERF_HAVE_ANALYSIS
#include "cudaperf/analysis/Analyzer.h"
#endif

#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace cudaperf {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

const json::object *objectAt(const json::object &object, const char *key) {
  const auto *value = object.if_contains(key);
  return value ? value->if_object() : nullptr;
}

double numberOr(const json::object *object, const char *key, double fallback) {
  if (!object)
    return fallback;
  const auto *value = object->if_contains(key);
  return value && value->is_number() ? value->to_number<double>() : fallback;
}

} // namespace

// ---------------------------------------------------------------- GpuQueue

GpuQueue::GpuQueue(int gpu, HarnessOptions options, unsigned batch, Metrics &metrics)
    : gpu_(gpu), options_(std::move(options)), batch_(batch), metrics_(metrics) {
  options_.environment.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(gpu));
  thread_ = std::thread([this] { serve(); });
}

GpuQueue::~GpuQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::future<json::object> GpuQueue::submit(HarnessJob job, std::shared_ptr<const ReferenceData> reference) {
  Pending pending{std::move(job), std::move(reference), {}};
  auto future = pending.promise.get_future();
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(pending));
  }
  wake_.notify_one();
  return future;
}

std::size_t GpuQueue::depth() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

void GpuQueue::serve() {
  for (;;) {
    std::vector<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty())
        return; // stopping, nothing left
      // The oldest evaluation and the others of its task waiting with it: one warm harness.
      batch.push_back(std::move(pending_.front()));
      pending_.pop_front();
      for (auto it = pending_.begin(); it != pending_.end() && batch.size() < batch_;) {
        // Same task, seed and trials: the same expected outputs and benchmark inputs.
        const HarnessJob &first = batch.front().job;
        if (it->job.task == first.task && it->job.seed == first.seed &&
            it->job.effectiveTrials() == first.effectiveTrials() && it->job.baseline == first.baseline &&
            it->job.runs == first.runs && it->job.warmup == first.warmup) {
          batch.push_back(std::move(*it));
          it = pending_.erase(it);
        } else {
          ++it;
        }
      }
    }
    HarnessJob job = batch.front().job;
    job.candidates.clear();
    for (const auto &pending : batch)
      job.candidates.push_back(pending.job.candidates.front());
    const auto start = Clock::now();
    std::vector<json::object> results;
    try {
      results = runHarness(job, *batch.front().reference, options_);
    } catch (const std::exception &error) {
      for (auto &pending : batch)
        pending.promise.set_value(json::object{{"status", "harness_error"}, {"error", error.what()}});
      continue;
    }
    metrics_.observePhase("gpu", secondsSince(start) / static_cast<double>(batch.size()));
    for (std::size_t i = 0; i < batch.size(); ++i) {
      json::object result = i < results.size() ? std::move(results[i]) : json::object{{"status", "harness_error"}};
      const auto *sandbox = objectAt(result, "sandbox");
      if (sandbox && (sandbox->at("outcome") != "exited" || sandbox->at("exit_code") != 0))
        metrics_.countWorkerRestart(gpu_);
      result["gpu"] = gpu_;
      batch[i].promise.set_value(std::move(result));
    }
  }
}

// --------------------------------------------------------------- Evaluator

Evaluator::Evaluator(DaemonConfig config, EvaluationStore &store, TaskCatalog &catalog, CandidateCompiler &compiler,
                     Metrics &metrics)
    : config_(std::move(config)), store_(store), catalog_(catalog), metrics_(metrics), compiler_(compiler),
      references_(config_.cacheDir / "reference-outputs"),
      cpuPool_(config_.cpuWorkers ? config_.cpuWorkers : std::max(1u, std::thread::hardware_concurrency())) {
  std::filesystem::path runner = config_.runner;
  if (runner.empty()) {
    std::error_code error;
    runner = std::filesystem::read_symlink("/proc/self/exe", error).parent_path() / "cudaperf-run";
  }
  std::vector<int> gpus = config_.gpus;
  if (!config_.gpusGiven && std::filesystem::exists("/dev/nvidia0") && std::filesystem::exists(runner))
    gpus = {0};
  if (!gpus.empty() && !std::filesystem::exists(runner)) {
    spdlog::warn("no harness at {}: evaluations answer no_gpu", runner.string());
    gpus.clear();
  }
  for (int gpu : gpus) {
    HarnessOptions options;
    options.runner = runner;
    options.limits.wallSeconds = options.limits.cpuSeconds = config_.harnessWallSeconds;
    // The task folders are world-readable sources: hidden. The reference
    // outputs, the compiled references and the store are the daemon's own
    // (mode 0700 folders, a 0600 database), out of the sandbox user's reach.
    options.limits.hiddenPaths = {std::filesystem::absolute(config_.tasksDir).string(),
                                  std::filesystem::absolute(config_.cacheDir / "reference-outputs").string(),
                                  std::filesystem::absolute(config_.cacheDir / "references").string()};
    gpus_.push_back(std::make_unique<GpuQueue>(gpu, options, config_.workerBatch, metrics_));
  }
  for (const auto &queue : gpus_) {
    GpuQueue *raw = queue.get();
    metrics_.gauge("cudaperf_gpu_queue_depth_gpu" + std::to_string(raw->gpu()),
                   "Evaluations waiting for GPU " + std::to_string(raw->gpu()) + ".",
                   [raw] { return static_cast<double>(raw->depth()); });
  }
  metrics_.gauge("cudaperf_evaluations_in_flight", "Evaluations accepted and not yet answered.",
                 [this] { return static_cast<double>(inFlight_.load()); });
  toolVersions_ = "nvcc " + compiler_.nvccVersion() + "; cudaperf 1";
  if (analysisAvailable())
    precompiledHeader(config_.arch); // at start, not in the first request
  if (!config_.rankerFile.empty()) {
    const std::string problem = reloadRanker();
    if (!problem.empty())
      throw std::invalid_argument(problem);
  }
  spdlog::info("evaluator: {} GPU queue(s), analysis {}, ranker {}", gpus_.size(),
               analysisAvailable() ? "in process" : "not built", rankerLoaded() ? "loaded" : "none");
}

Evaluator::~Evaluator() { cpuPool_.join(); }

bool Evaluator::analysisAvailable() const {
#ifdef CUDAPERF_HAVE_ANALYSIS
  return true;
#else
  return false;
#endif
}

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

std::optional<double> Evaluator::structuralReward(const json::object &features) const {
  std::shared_lock lock(rankerMutex_);
  if (!ranker_)
    return std::nullopt;
  try {
    return rankerScore(*ranker_, featuresFromJson(features.at("vector")));
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

std::string Evaluator::precompiledHeader(const std::string &arch) {
#ifdef CUDAPERF_HAVE_ANALYSIS
  if (!config_.precompiledHeaders)
    return "";
  std::lock_guard lock(preambleMutex_);
  if (auto known = preambles_.find(arch); known != preambles_.end())
    return known->second;
  AnalysisOptions options;
  options.arch = arch;
  std::filesystem::create_directories(config_.cacheDir);
  const std::string file = (std::filesystem::absolute(config_.cacheDir) / ("cuda-headers-" + arch + ".pch")).string();
  const auto start = Clock::now();
  std::string problem = buildAnalysisPreamble(options, file);
  if (problem.empty())
    spdlog::info("analysis: CUDA headers precompiled for {} in {:.2f} s", arch, secondsSince(start));
  else
    spdlog::warn("analysis: no precompiled headers for {} (every analysis parses them): {}", arch, problem);
  return preambles_[arch] = problem.empty() ? file : "";
#else
  (void)arch;
  return "";
#endif
}

json::object Evaluator::analyze(const std::string &source, const std::string &fileName, const std::string &arch) {
#ifdef CUDAPERF_HAVE_ANALYSIS
  AnalysisOptions options;
  options.arch = arch;
  options.precompiledHeader = precompiledHeader(arch);
  const auto start = Clock::now();
  const SourceAnalysis analysis = analyzeSource(source, fileName, options, analysisCompilerArgs(options, {}));
  metrics_.observePhase("analysis", secondsSince(start));
  if (!analysis.parsed || analysis.reports.empty())
    return {{"error", "the analysis could not run: " + analysis.compilerDiagnostics}};
  json::object report = reportToJson(analysis.reports.front()).as_object();
  json::object features{{"report", report}, {"vector", report.at("features")}};
  if (const auto rStr = structuralReward(features))
    report["r_str"] = *rStr;
  return report;
#else
  (void)source, (void)fileName, (void)arch;
  return {{"error", "this cudaperfd was built without the analysis library (no Clang development files)"}};
#endif
}

std::string Evaluator::rankerHashNow() const {
  std::shared_lock lock(rankerMutex_);
  return ranker_ ? rankerHash_ : "";
}

std::string Evaluator::requestKey(const EvaluationRequest &request, const std::string &taskJson) const {
  const RewardConfig &r = config_.reward;
  std::ostringstream configuration;
  configuration << config_.arch << ' ' << config_.seed << ' ' << config_.runs << ' ' << config_.warmup << ' '
                << r.alphaComp << ' ' << r.alphaWrong << ' ' << r.alphaSpeed << ' ' << r.alphaCv << ' ' << r.speedupMin
                << ' ' << r.speedupMax << ' ' << r.lambdaStr << ' '
                << (r.baseline == SpeedupBaseline::Cpu ? "cpu" : "gpu") << ' ' << gpuAvailable() << ' '
                << rankerHashNow();
  return contentKey({"evaluate-v1", request.task, taskJson, request.source, configuration.str(), toolVersions_});
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
  auto stored = store_.find(key);
  if (!stored)
    return std::nullopt;
  metrics_.countCacheHit();
  stored->second["id"] = stored->first;
  stored->second["cached"] = true;
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
  const PreparedTask task = catalog_.prepare(request.task);
  if (!task.spec)
    return {{"status", "bad_request"}, {"error", task.error}};
  const std::string key = requestKey(request, task.taskJson);
  if (auto stored = store_.find(key)) {
    metrics_.countCacheHit();
    json::object result = std::move(stored->second);
    result["id"] = stored->first;
    result["cached"] = true;
    return result;
  }
  metrics_.countCacheMiss();
  if (!task.error.empty())
    return {{"status", "harness_error"}, {"error", task.error}};
  json::object result = compute(request, task, key);
  StoredEvaluation stored;
  stored.key = key;
  stored.task = request.task;
  stored.source = request.source;
  stored.sourceHash = contentKey({request.source});
  stored.status = std::string(result.at("status").as_string());
  stored.gpu = result.contains("gpu") ? json::serialize(result.at("gpu")) : "";
  stored.toolVersions = toolVersions_;
  stored.result = result;
  const auto storeStart = Clock::now();
  result["id"] = store_.insert(stored);
  metrics_.observePhase("store", secondsSince(storeStart));
  result["cached"] = false;
  return result;
}

json::object Evaluator::compute(const EvaluationRequest &request, const PreparedTask &task, const std::string &key) {
  const auto began = Clock::now();
  // Analysis and compile in parallel on the CPU pool.
  std::promise<json::object> featuresPromise;
  auto featuresFuture = featuresPromise.get_future();
  boost::asio::post(cpuPool_, [&, promise = std::move(featuresPromise)]() mutable {
    try {
      promise.set_value(analyze(request.source, "candidate.cu", config_.arch));
    } catch (const std::exception &error) {
      promise.set_value(json::object{{"error", error.what()}});
    }
  });
  const auto compileStart = Clock::now();
  const CompileResult compiled = compiler_.compile(request.source, task.spec->allowedLibraries);
  metrics_.observePhase("compile", secondsSince(compileStart));
  json::object report = featuresFuture.get();

  json::object result;
  result["task"] = request.task;
  result["turn"] = request.turn;
  result["compile"] = json::object{
      {"ok", compiled.ok},
      {"cached", compiled.cached},
      {"seconds", compiled.seconds},
      {"log", compiled.log.size() > 8000 ? compiled.log.substr(compiled.log.size() - 8000) : compiled.log}};
  if (compiled.rejected) {
    json::array forbidden;
    for (const auto &symbol : compiled.forbidden)
      forbidden.push_back(json::value(symbol));
    result["compile"].as_object()["forbidden"] = forbidden;
  }
  if (report.contains("error"))
    result["features"] = json::object{{"error", report.at("error")}};
  else
    result["features"] = json::object{{"vector", report.at("features")}, {"report", report}};
  const std::optional<double> rStr = result["features"].as_object().contains("vector")
                                         ? structuralReward(result["features"].as_object())
                                         : std::nullopt;

  VerifiableOutcome outcome;
  outcome.compiled = compiled.ok;
  if (!compiled.ok) {
    result["status"] = compiled.rejected ? "rejected" : "compile_error";
  } else if (!gpuAvailable()) {
    result["status"] = "no_gpu";
  } else {
    HarnessJob job;
    job.task = task.spec;
    job.taskJson = task.taskJson;
    job.candidates = {compiled.library};
    job.baseline = task.baseline;
    job.seed = config_.seed;
    job.runs = config_.runs;
    job.warmup = config_.warmup;
    const auto referenceStart = Clock::now();
    std::shared_ptr<const ReferenceData> reference;
    try {
      reference = std::make_shared<const ReferenceData>(
          references_.compute(*task.spec, task.taskJson, task.reference, job.seed, job.effectiveTrials(), true));
    } catch (const std::exception &error) {
      result["status"] = "harness_error";
      result["error"] = error.what();
    }
    metrics_.observePhase("reference", secondsSince(referenceStart));
    if (reference) {
      GpuQueue &queue = *gpus_[nextGpu_++ % gpus_.size()];
      json::object run = queue.submit(job, reference).get();
      for (auto &[field, value] : run)
        result[field] = value;
      const json::object *correctness = objectAt(result, "correctness");
      outcome.testsPassed = static_cast<int>(numberOr(correctness, "passed", 0));
      outcome.testsTotal = static_cast<int>(numberOr(correctness, "total", 0));
      if (json::object *timing = result.contains("timing") ? result["timing"].if_object() : nullptr) {
        const char *which = config_.reward.baseline == SpeedupBaseline::Cpu ? "speedup_cpu" : "speedup_gpu";
        if (const auto *speedup = timing->if_contains(which); speedup && speedup->is_number()) {
          outcome.speedup = speedup->to_number<double>();
          (*timing)["speedup"] = *outcome.speedup;
          (*timing)["baseline"] = config_.reward.baseline == SpeedupBaseline::Cpu ? "cpu" : "gpu";
        }
        outcome.cv = numberOr(timing, "cv", 0);
      }
      // A rejected or broken run earns no correctness credit.
      if (result.at("status") != "ok" && result.at("status") != "wrong_answer")
        outcome.testsPassed = 0, outcome.testsTotal = std::max(outcome.testsTotal, 1);
    }
  }
  const std::string status(result.at("status").as_string());
  json::object reward;
  if (status == "no_gpu" || status == "harness_error") {
    reward["r_ver"] = nullptr; // nothing was verified
  } else {
    if (status == "rejected")
      outcome.compiled = false; // a hack is scored like a failed compile
    const VerifiableReward rVer = verifiableReward(outcome, config_.reward);
    reward["r_ver"] =
        json::object{{"total", rVer.total}, {"compile", rVer.compile},   {"correctness", rVer.correctness},
                     {"speed", rVer.speed}, {"variance", rVer.variance}, {"all_passed", rVer.allPassed}};
  }
  reward["r_str"] = rStr ? json::value(*rStr) : json::value(nullptr);
  reward["lambda_str"] = config_.reward.lambdaStr;
  const double rVerTotal = reward["r_ver"].is_object() ? reward["r_ver"].as_object()["total"].as_double() : 0.0;
  reward["total"] = combinedReward(rVerTotal, rStr.value_or(0.0), config_.reward);
  result["reward"] = reward;
  result["key"] = key;
  result["feedback"] = feedbackText(result);
  result["seconds"] = secondsSince(began);
  metrics_.observePhase("evaluate", secondsSince(began));
  spdlog::info("evaluate task={} status={} r_total={:.3f} seconds={:.2f}", request.task, status,
               reward["total"].as_double(), secondsSince(began));
  return result;
}

std::string feedbackText(const json::object &result) {
  std::ostringstream text;
  const std::string status(result.at("status").as_string());
  const json::object *compile = objectAt(result, "compile");
  const json::object *correctness = objectAt(result, "correctness");
  const json::object *timing = objectAt(result, "timing");
  if (status == "compile_error") {
    text << "The code did not compile. Compiler output (last lines):\n";
    std::string log = compile ? std::string(compile->at("log").as_string()) : "";
    text << (log.size() > 2000 ? log.substr(log.size() - 2000) : log);
  } else if (status == "rejected") {
    text << "The candidate was rejected: ";
    if (compile && compile->contains("forbidden"))
      text << "it uses symbols this task does not allow (" << json::serialize(compile->at("forbidden"))
           << "); write the kernel yourself.";
    else if (result.contains("error"))
      text << result.at("error").as_string() << ".";
  } else if (status == "no_gpu") {
    text << "Compiled successfully, but this reward server has no GPU: correctness and speed were not checked "
            "(only the static features and the structural reward are available).";
  } else if (status == "wrong_answer" && correctness) {
    text << "Wrong answer: " << numberOr(correctness, "passed", 0) << " of " << numberOr(correctness, "total", 0)
         << " tests passed.";
    const auto *failures = correctness->if_contains("failures");
    if (failures && failures->is_array() && !failures->get_array().empty()) {
      const json::object &first = failures->get_array().front().as_object();
      text << " First failure at sizes " << json::serialize(first.at("sizes")) << ": " << first.at("reason").as_string()
           << ".";
      if (const auto *mismatches = first.if_contains("first_mismatches"))
        text << " First mismatches (index, expected, actual): " << json::serialize(*mismatches) << ".";
    }
  } else if (status == "timeout") {
    text << "The evaluation did not finish in time (" << result.at("error").as_string()
         << "): look for a kernel or host loop that never ends.";
  } else if (status == "runtime_error") {
    text << "Runtime error: " << result.at("error").as_string() << ".";
  } else if (status == "ok" && timing) {
    text << "Correct (" << numberOr(correctness, "passed", 0) << " tests). Median time "
         << numberOr(timing, "median_ms", 0) << " ms (CV " << numberOr(timing, "cv", 0) * 100 << "%)";
    if (timing->contains("speedup"))
      text << ", speedup " << numberOr(timing, "speedup", 0) << "x against the " << timing->at("baseline").as_string()
           << " baseline";
    text << ".";
  } else if (result.contains("error")) {
    text << status << ": " << result.at("error").as_string();
  }
  const json::object *features = objectAt(result, "features");
  if (const json::object *vector = features ? objectAt(*features, "vector") : nullptr) {
    const double coal = numberOr(vector, "coal", 1), occ = numberOr(vector, "occ", 1), div = numberOr(vector, "div", 0);
    if (coal < 0.5)
      text << " Global memory accesses look poorly coalesced (coal " << coal
           << "): make neighbouring threads touch neighbouring addresses.";
    if (occ < 0.5)
      text << " The block size is outside 128..256 threads (occ " << occ << ").";
    if (div > 0.25)
      text << " Many branches diverge within a warp (div " << div << ").";
  }
  return text.str();
}

} // namespace cudaperf
