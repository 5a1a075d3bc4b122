#include "cudaperf/daemon/HarnessRun.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>

namespace cudaperf {

namespace json = boost::json;

sandbox::Limits HarnessOptions::defaultLimits() {
  sandbox::Limits limits;
  limits.wallSeconds = 120; // correctness, 40 timed runs, the GPU baseline's
  limits.cpuSeconds = 120;
  limits.fileSizeBytes = 64ull << 20;
  limits.openFiles = 1024;         // the CUDA driver opens many device files
  limits.processes = 4096;         // per user (nobody), across parallel runs; the PID namespace bounds each
  limits.outputBytes = 1 << 20;    // stdout (answers) and stderr (the candidate's prints) each
  limits.privateTmpBytes = 64ull << 20;
  return limits;
}

int HarnessJob::effectiveTrials() const {
  return trials > 0 ? trials : std::max<int>(2, static_cast<int>(distributionCount(*task)));
}

json::object verdictWithoutAnswer(const sandbox::Result &run, const sandbox::Limits &limits) {
  using sandbox::Outcome;
  auto verdict = [](const char *status, const std::string &error) {
    return json::object{{"status", status}, {"error", error}};
  };
  std::ostringstream seconds;
  seconds << limits.wallSeconds;
  switch (run.outcome) {
  case Outcome::WallTimeout:
    return verdict("timeout", "did not finish within the wall-clock limit of " + seconds.str() + " s");
  case Outcome::CpuLimit:
    return verdict("timeout", "used more than " + std::to_string(static_cast<int>(limits.cpuSeconds)) +
                                  " s of CPU time");
  case Outcome::Signaled:
    return verdict("runtime_error", std::string("the process was killed by signal ") + std::to_string(run.signal) +
                                        " (" + strsignal(run.signal) + ")");
  case Outcome::OutputLimit:
    return verdict("runtime_error", "wrote more than " + std::to_string(limits.outputBytes) +
                                        " bytes to stdout or stderr (the run was stopped)");
  case Outcome::FileSizeLimit:
    return verdict("runtime_error", "wrote a file past the limit of " + std::to_string(limits.fileSizeBytes) +
                                        " bytes");
  case Outcome::Exited:
    return verdict("runtime_error", "the process exited with status " + std::to_string(run.exitCode) +
                                        " before the harness answered (exit() or a crash inside the candidate)");
  case Outcome::StartFailed:
    break;
  }
  return verdict("harness_error", "the harness could not be started: " + run.note);
}

std::vector<json::object> runHarness(const HarnessJob &job, const ReferenceData &reference,
                                     const HarnessOptions &options, int repeat) {
  std::random_device entropy;
  std::vector<std::string> nonces;
  sandbox::Request request;
  request.argv = {std::filesystem::absolute(options.runner).string()};
  for (int i = 0; i < repeat; ++i) {
    std::ostringstream nonce;
    nonce << std::hex << entropy() << entropy() << entropy() << entropy();
    nonces.push_back(nonce.str());
    json::object line{{"task_json", job.taskJson},
                      {"task_name", job.task->name},
                      {"candidate", std::filesystem::weakly_canonical(job.candidate).string()},
                      {"nonce", nonces.back()},
                      {"seed", job.seed},
                      {"trials", job.effectiveTrials()},
                      {"warmup", job.warmup},
                      {"runs", job.runs},
                      {"skip_timing", job.skipTiming},
                      {"min_gpu_share", job.minGpuShare},
                      {"cpu_baseline_ms", reference.cpuBaselineMs},
                      {"expected_bytes", reference.expectedBlob.size()}};
    if (job.baseline)
      line["baseline"] = std::filesystem::weakly_canonical(*job.baseline).string();
    request.stdinData += json::serialize(line) + "\n" + reference.expectedBlob;
  }
  sandbox::Limits limits = options.limits;
  limits.wallSeconds *= repeat;
  limits.cpuSeconds *= repeat;
  const sandbox::Result run = sandbox::run(request, limits);

  json::object sandboxInfo{{"outcome", sandbox::toString(run.outcome)},
                           {"exit_code", run.exitCode},
                           {"wall_seconds", run.wallSeconds},
                           {"network_isolated", run.networkIsolated},
                           {"processes_isolated", run.processesIsolated},
                           {"filesystem_isolated", run.filesystemIsolated},
                           {"note", run.note},
                           {"stderr_tail", run.stderrText.substr(run.stderrText.size() > 2000
                                                                     ? run.stderrText.size() - 2000
                                                                     : 0)}};
  // An answer counts only with its request's nonce, in order.
  std::vector<json::object> results;
  std::istringstream lines(run.stdoutText);
  std::string text;
  while (results.size() < nonces.size() && std::getline(lines, text)) {
    boost::system::error_code error;
    json::value answer = json::parse(text, error);
    if (error || !answer.is_object())
      continue;
    json::object &object = answer.get_object();
    const auto *nonce = object.if_contains("nonce");
    if (!nonce || !nonce->is_string() || nonce->get_string() != nonces[results.size()])
      continue;
    object.erase("nonce");
    results.push_back(std::move(object));
  }
  while (results.size() < nonces.size())
    results.push_back(verdictWithoutAnswer(run, limits));
  for (auto &result : results)
    result["sandbox"] = sandboxInfo;
  return results;
}

} // namespace cudaperf
