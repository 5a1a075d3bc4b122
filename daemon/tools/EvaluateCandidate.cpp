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
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/InstalledPaths.h"
#include "cudaperf/daemon/JudgeRun.h"
#include "cudaperf/daemon/ReferenceOutputs.h"
#include "cudaperf/daemon/ToolArguments.h"

#include <boost/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace json = boost::json;

namespace {

int usage(const std::string &problem) {
  std::cerr << "cudaperf-evaluate: " << problem
            << "\nusage: cudaperf-evaluate --task DIR --reference LIB --candidate LIB [--candidate LIB]...\n"
               "         [--baseline LIB] [--reference-cache DIR] [--judge PATH] [--worker PATH] [--hide PATH]...\n"
               "         [--wall S] [--seed N|fresh] [--trials N] [--warmup N] [--runs N] [--min-runs N]\n"
               "         [--median-half-width F] [--repeat N]\n"
               "         [--skip-timing] [--device cuda|none] [--insecure-no-isolation]\n"
               "       cudaperf-evaluate --task DIR --reference LIB --reference-cache DIR --prepare\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::filesystem::path taskDir, reference, cacheDir;
  std::vector<std::filesystem::path> libraries;
  cudaperf::JudgeJob job;
  cudaperf::JudgeOptions options;
  options.judge = cudaperf::companionProgram("cudaperf-judge");
  std::uint64_t seed = 1;
  bool freshSeeds = false;
  int repeat = 1;
  bool prepareOnly = false;
  try {
    for (cudaperf::ToolArguments args(argc, argv); args.next();) {
      const std::string &arg = args.arg();
      auto next = [&] { return args.value(); };
      if (arg == "--task")
        taskDir = next();
      else if (arg == "--candidate")
        libraries.push_back(next());
      else if (arg == "--prepare")
        prepareOnly = true;
      else if (arg == "--reference")
        reference = next();
      else if (arg == "--baseline")
        job.baseline = next();
      else if (arg == "--reference-cache")
        cacheDir = next();
      else if (arg == "--judge")
        options.judge = next();
      else if (arg == "--worker")
        options.worker = next();
      else if (arg == "--hide")
        options.hiddenPaths.push_back(std::filesystem::absolute(next()).string());
      else if (arg == "--wall")
        options.wallSeconds = std::stod(next());
      else if (arg == "--seed") {
        const std::string value = next();
        freshSeeds = value == "fresh";
        if (!freshSeeds)
          seed = std::stoull(value);
      } else if (arg == "--trials")
        job.trials = std::stoi(next());
      else if (arg == "--warmup")
        job.warmup = std::stoi(next());
      else if (arg == "--runs")
        job.runs = std::stoi(next());
      else if (arg == "--min-runs")
        job.minRuns = std::stoi(next());
      else if (arg == "--median-half-width")
        job.medianHalfWidth = std::stod(next());
      else if (arg == "--repeat")
        repeat = std::max(1, std::stoi(next()));
      else if (arg == "--skip-timing")
        job.skipTiming = true;
      else if (arg == "--device")
        options.cuda = next() != "none";
      else if (arg == "--insecure-no-isolation")
        options.requireIsolation = false;
      else
        args.unknown();
    }
    if (taskDir.empty() || reference.empty() || (libraries.empty() && !prepareOnly))
      throw std::invalid_argument("--task, --reference and at least one --candidate (or --prepare) are required");
  } catch (const std::exception &error) {
    return usage(error.what());
  }

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
    if (prepareOnly) {
      const auto data = outputs.compute(task, job.taskJson, reference, seed, trials, !job.skipTiming);
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
        candidate.reference = std::make_shared<const cudaperf::ReferenceData>(
            outputs.compute(task, job.taskJson, reference, candidate.seed, trials, !job.skipTiming, !freshSeeds));
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
