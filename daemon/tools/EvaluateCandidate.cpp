// cudaperf-evaluate: compiled candidates through the GPU evaluation the
// daemon runs, without HTTP: the reference outputs and the CPU baseline from
// the trusted side (cached on disk for a fixed seed), then the judge, which
// evaluates each candidate in a sandboxed worker of its own with the task's
// folder, the reference and its cache hidden.
//
//   cudaperf-evaluate --task DIR --reference LIB --candidate LIB [--candidate LIB]...
//                     [--baseline LIB] [--reference-cache DIR] [--judge PATH] [--worker PATH]
//                     [--hide PATH]... [--wall S] [--seed N|fresh] [--trials N] [--warmup N]
//                     [--runs N] [--repeat N] [--skip-timing] [--device cuda|none]
//                     [--insecure-no-isolation]
//   cudaperf-evaluate --task DIR --reference LIB --reference-cache DIR --prepare
//
// Prints one JSON object per evaluation, each candidate --repeat times, in
// one judge (restarted when its own GPU context fails). --seed fresh draws a
// new secret seed per evaluation, as the daemon does. --prepare only fills
// the reference cache (expected outputs, CPU baseline).
// Exit status 0 when every evaluation was answered, 1 otherwise, 2 on bad usage.
#include "cudaperf/contracts/CommandLine.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/InstalledPaths.h"
#include "cudaperf/daemon/JudgeRun.h"
#include "cudaperf/daemon/ReferenceOutputs.h"

#include <boost/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace json = boost::json;

int main(int argc, char **argv) {
  std::filesystem::path taskDir, reference, cacheDir;
  std::vector<std::filesystem::path> libraries;
  std::vector<std::string> hidden;
  cudaperf::JudgeJob job;
  cudaperf::JudgeOptions options;
  options.judge = cudaperf::companionProgram("cudaperf-judge");
  std::string seedText = "1", device = "cuda";
  std::uint64_t seed = 1;
  bool freshSeeds = false, prepareOnly = false, insecure = false;
  int repeat = 1;
  CLI::App app("cudaperf-evaluate: compiled candidates through the judge, without HTTP", "cudaperf-evaluate");
  using cudaperf::valueFlag;
  valueFlag(app, "--task", taskDir, "the task folder")->required();
  valueFlag(app, "--reference", reference, "the task's compiled reference")->required();
  valueFlag(app, "--candidate", libraries, "a compiled candidate (repeatable)");
  std::string baseline;
  valueFlag(app, "--baseline", baseline, "the task's compiled GPU baseline");
  valueFlag(app, "--reference-cache", cacheDir, "reference outputs and the CPU baseline, cached");
  valueFlag(app, "--judge", options.judge, "cudaperf-judge");
  valueFlag(app, "--worker", options.worker, "cudaperf-worker (beside the judge when not given)");
  valueFlag(app, "--hide", hidden, "a path no worker may see (repeatable)");
  valueFlag(app, "--wall", options.wallSeconds, "per evaluation, seconds");
  valueFlag(app, "--seed", seedText, "N, or fresh: a new secret seed per evaluation")->default_str("1");
  valueFlag(app, "--trials", job.trials, "input distributions drawn");
  valueFlag(app, "--warmup", job.warmup, "warm-up calls");
  valueFlag(app, "--runs", job.runs, "the most timed calls");
  valueFlag(app, "--min-runs", job.minRuns, "timed calls stop here at the earliest");
  valueFlag(app, "--median-half-width", job.medianHalfWidth, "... once the median is this tight");
  valueFlag(app, "--repeat", repeat, "each candidate this many times")->check(CLI::PositiveNumber);
  valueFlag(app, "--device", device, "cuda or none")->check(CLI::IsMember({"cuda", "none"}));
  app.add_flag("--skip-timing", job.skipTiming, "correctness only");
  app.add_flag("--prepare", prepareOnly, "only fill the reference cache");
  app.add_flag("--insecure-no-isolation", insecure, "development only: run without isolation");
  if (const auto status = cudaperf::parseOrExit(app, {argv + 1, argv + argc}, "cudaperf-evaluate"))
    return *status;
  try {
    freshSeeds = seedText == "fresh";
    if (!freshSeeds) {
      std::size_t used = 0;
      seed = std::stoull(seedText, &used);
      if (used != seedText.size())
        throw std::invalid_argument("--seed: expected a number or fresh, got '" + seedText + "'");
    }
    if (libraries.empty() && !prepareOnly)
      throw std::invalid_argument("at least one --candidate (or --prepare) is required");
  } catch (const std::exception &error) {
    std::cerr << "cudaperf-evaluate: " << error.what() << "\n" << app.help();
    return 2;
  }
  if (!baseline.empty())
    job.baseline = baseline;
  options.cuda = device != "none";
  options.requireIsolation = !insecure;
  for (const auto &path : hidden)
    options.hiddenPaths.push_back(std::filesystem::absolute(path).string());

  json::object failure;
  try {
    const cudaperf::TaskSpec task = cudaperf::loadTask(taskDir);
    std::ifstream file(taskDir / "task.json");
    std::stringstream text;
    text << file.rdbuf();
    job.task = &task;
    job.taskJson = text.str();
    job.reference = reference;
    // The candidate never sees the task's folder, the reference or its cache.
    for (const auto &path : {taskDir, reference.parent_path(), cacheDir})
      if (!path.empty())
        options.hiddenPaths.push_back(std::filesystem::absolute(path).string());

    cudaperf::ReferenceOutputs outputs(cacheDir);
    const auto trials = static_cast<std::size_t>(job.effectiveTrials());
    // An imported task with its eager baseline: the reference's outputs are the baseline's check, once per task.
    const bool fromBaseline = cudaperf::correctnessFromBaseline(job);
    if (prepareOnly) {
      const auto data = outputs.compute(task, job.taskJson, reference,
                                        fromBaseline ? cudaperf::kBaselineCheckSeed : seed, trials, !job.skipTiming);
      std::cout << json::serialize(json::object{{"task", task.name},
                                                {"cached", data.fromCache},
                                                {"seconds", data.seconds},
                                                {"cpu_baseline_ms", data.cpuBaselineMs},
                                                {"expected_bytes", data.expectedBlob.size()}})
                << std::endl;
      return 0;
    }
    std::random_device entropy;
    double referenceSeconds = 0;
    for (const auto &library : libraries)
      for (int r = 0; r < (freshSeeds ? repeat : 1); ++r) {
        cudaperf::JudgeCandidate candidate;
        candidate.library = library;
        candidate.seed = freshSeeds ? (static_cast<std::uint64_t>(entropy()) << 32 | entropy()) : seed;
        const auto start = std::chrono::steady_clock::now();
        candidate.expectedSeed = fromBaseline ? cudaperf::kBaselineCheckSeed : 0;
        if (fromBaseline && !job.candidates.empty()) {
          candidate.reference = job.candidates.front().reference; // the check seed's: one copy for them all
        } else {
          candidate.reference = std::make_shared<const cudaperf::ReferenceData>(
              outputs.compute(task, job.taskJson, reference, fromBaseline ? candidate.expectedSeed : candidate.seed,
                              trials, !job.skipTiming, fromBaseline || !freshSeeds));
        }
        referenceSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        job.candidates.push_back(candidate);
      }
    const auto began = std::chrono::steady_clock::now();
    auto results = cudaperf::runJudge(job, options, freshSeeds ? 1 : repeat);
    const double judgeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    bool allAnswered = true;
    for (std::size_t i = 0; i < results.size(); ++i) {
      auto &result = results[i];
      result["reference"] = json::object{{"seconds", referenceSeconds / static_cast<double>(results.size())}};
      result["judge_seconds"] = judgeSeconds / static_cast<double>(results.size());
      const auto &status = result.at("status");
      allAnswered &= status != "harness_error" && status != "bad_request";
      std::cout << json::serialize(result) << "\n";
    }
    return allAnswered ? 0 : 1;
  } catch (const cudaperf::TaskError &error) {
    failure = {{"status", "bad_task"}, {"error", error.what()}};
  } catch (const std::exception &error) {
    failure = {{"status", "harness_error"}, {"error", error.what()}};
  }
  std::cout << json::serialize(failure) << std::endl;
  return 1;
}
