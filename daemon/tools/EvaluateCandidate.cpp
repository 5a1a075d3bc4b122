// cudaperf-evaluate: one compiled candidate through the whole GPU evaluation
// the daemon runs: the reference outputs and CPU baseline from the trusted
// side (cached on disk), then the harness in the sandbox, with the task's
// folder, the reference and its cache hidden from the candidate.
//
//   cudaperf-evaluate --task DIR --reference LIB --candidate LIB [--candidate LIB]...
//                     [--baseline LIB] [--reference-cache DIR] [--runner PATH]
//                     [--hide PATH]... [--wall S] [--seed N] [--trials N]
//                     [--warmup N] [--runs N] [--repeat N] [--skip-timing]
//   cudaperf-evaluate --task DIR --reference LIB --reference-cache DIR --prepare
//
// Prints one JSON object per evaluation: every candidate (each --repeat
// times) in one warm harness, restarted when a candidate ends it. --prepare
// only fills the reference cache (expected outputs, CPU baseline).
// Exit status 0 when every evaluation was answered, 1 otherwise, 2 on bad usage.
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/HarnessRun.h"
#include "cudaperf/daemon/ReferenceOutputs.h"

#include <boost/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace json = boost::json;

namespace {

std::filesystem::path besideThisProgram(const std::string &name) {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path(name) : self.parent_path() / name;
}

int usage(const std::string &problem) {
  std::cerr << "cudaperf-evaluate: " << problem
            << "\nusage: cudaperf-evaluate --task DIR --reference LIB --candidate LIB [--candidate LIB]...\n"
               "         [--baseline LIB] [--reference-cache DIR] [--runner PATH] [--hide PATH]... [--wall S]\n"
               "         [--seed N] [--trials N] [--warmup N] [--runs N] [--repeat N] [--skip-timing]\n"
               "       cudaperf-evaluate --task DIR --reference LIB --reference-cache DIR --prepare\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::filesystem::path taskDir, reference, cacheDir;
  cudaperf::HarnessJob job;
  cudaperf::HarnessOptions options;
  options.runner = besideThisProgram("cudaperf-run");
  std::vector<std::string> hidden;
  int repeat = 1;
  bool prepareOnly = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc)
          throw std::invalid_argument(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--task")
        taskDir = next();
      else if (arg == "--candidate")
        job.candidates.push_back(next());
      else if (arg == "--prepare")
        prepareOnly = true;
      else if (arg == "--reference")
        reference = next();
      else if (arg == "--baseline")
        job.baseline = next();
      else if (arg == "--reference-cache")
        cacheDir = next();
      else if (arg == "--runner")
        options.runner = next();
      else if (arg == "--hide")
        hidden.push_back(std::filesystem::absolute(next()).string());
      else if (arg == "--wall")
        options.limits.wallSeconds = options.limits.cpuSeconds = std::stod(next());
      else if (arg == "--seed")
        job.seed = std::stoull(next());
      else if (arg == "--trials")
        job.trials = std::stoi(next());
      else if (arg == "--warmup")
        job.warmup = std::stoi(next());
      else if (arg == "--runs")
        job.runs = std::stoi(next());
      else if (arg == "--repeat")
        repeat = std::max(1, std::stoi(next()));
      else if (arg == "--skip-timing")
        job.skipTiming = true;
      else
        throw std::invalid_argument("unknown argument " + arg);
    }
    if (taskDir.empty() || reference.empty() || (job.candidates.empty() && !prepareOnly))
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
    // The candidate never sees the task's folder, the reference or its cache.
    for (const auto &path : {taskDir, reference.parent_path(), cacheDir})
      if (!path.empty())
        hidden.push_back(std::filesystem::absolute(path).string());
    options.limits.hiddenPaths = hidden;

    cudaperf::ReferenceOutputs outputs(cacheDir);
    const auto data = outputs.compute(task, job.taskJson, reference, job.seed, job.effectiveTrials(), !job.skipTiming);
    if (prepareOnly) {
      std::cout << json::serialize(json::object{{"task", task.name},
                                                {"cached", data.fromCache},
                                                {"seconds", data.seconds},
                                                {"cpu_baseline_ms", data.cpuBaselineMs},
                                                {"expected_bytes", data.expectedBlob.size()}})
                << std::endl;
      return 0;
    }
    const auto began = std::chrono::steady_clock::now();
    auto results = cudaperf::runHarness(job, data, options, repeat);
    const double harnessSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    bool allAnswered = true;
    for (auto &result : results) {
      result["reference"] =
          json::object{{"cached", data.fromCache}, {"seconds", data.seconds}, {"cpu_baseline_ms", data.cpuBaselineMs}};
      result["harness_seconds"] = harnessSeconds / static_cast<double>(results.size());
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
