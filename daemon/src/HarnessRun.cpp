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
  limits.openFiles = 1024;      // the CUDA driver opens many device files
  limits.processes = 4096;      // per user (nobody), across parallel runs; the PID namespace bounds each
  limits.outputBytes = 1 << 20; // stdout (answers) and stderr (the candidate's prints) each
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
    return verdict("timeout",
                   "used more than " + std::to_string(static_cast<int>(limits.cpuSeconds)) + " s of CPU time");
  case Outcome::Signaled:
    return verdict("runtime_error", std::string("the process was killed by signal ") + std::to_string(run.signal) +
                                        " (" + strsignal(run.signal) + ")");
  case Outcome::OutputLimit:
    return verdict("runtime_error", "wrote more than " + std::to_string(limits.outputBytes) +
                                        " bytes to stdout or stderr (the run was stopped)");
  case Outcome::FileSizeLimit:
    return verdict("runtime_error",
                   "wrote a file past the limit of " + std::to_string(limits.fileSizeBytes) + " bytes");
  case Outcome::Exited:
    return verdict("runtime_error", "the process exited with status " + std::to_string(run.exitCode) +
                                        " before the harness answered (exit() or a crash inside the candidate)");
  case Outcome::StartFailed:
    break;
  }
  return verdict("harness_error", "the harness could not be started: " + run.note);
}

namespace {

// One harness process over `candidates`; returns the answers it gave (a
// prefix, in order) and how it ended.
std::vector<json::object> runOnce(const HarnessJob &job, const ReferenceData &reference, const HarnessOptions &options,
                                  const std::vector<std::filesystem::path> &candidates, sandbox::Result &run) {
  std::random_device entropy;
  std::vector<std::string> nonces;
  sandbox::Request request;
  request.argv = {std::filesystem::absolute(options.runner).string()};
  request.environment = options.environment;
  for (const auto &candidate : candidates) {
    std::ostringstream nonce;
    nonce << std::hex << entropy() << entropy() << entropy() << entropy();
    nonces.push_back(nonce.str());
    json::object line{{"task_json", job.taskJson},
                      {"task_name", job.task->name},
                      {"candidate", std::filesystem::weakly_canonical(candidate).string()},
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
  // The harness and the libraries it loads stay visible under a private /tmp.
  limits.visiblePaths.push_back(std::filesystem::weakly_canonical(options.runner).parent_path().string());
  for (const auto &candidate : candidates)
    limits.visiblePaths.push_back(std::filesystem::weakly_canonical(candidate).parent_path().string());
  if (job.baseline)
    limits.visiblePaths.push_back(std::filesystem::weakly_canonical(*job.baseline).parent_path().string());
  // The wall-clock limit is per evaluation: each answer must come within it.
  limits.stdoutSilenceSeconds = options.limits.wallSeconds;
  limits.wallSeconds *= static_cast<double>(candidates.size());
  limits.cpuSeconds *= static_cast<double>(candidates.size());
  run = sandbox::run(request, limits);

  // An answer counts only with its request's nonce, in order.
  std::vector<json::object> answers;
  std::istringstream lines(run.stdoutText);
  std::string text;
  while (answers.size() < nonces.size() && std::getline(lines, text)) {
    boost::system::error_code error;
    json::value answer = json::parse(text, error);
    if (error || !answer.is_object())
      continue;
    json::object &object = answer.get_object();
    const auto *nonce = object.if_contains("nonce");
    if (!nonce || !nonce->is_string() || nonce->get_string() != nonces[answers.size()])
      continue;
    object.erase("nonce");
    answers.push_back(std::move(object));
  }
  return answers;
}

json::object describe(const sandbox::Result &run) {
  return {{"outcome", sandbox::toString(run.outcome)},
          {"exit_code", run.exitCode},
          {"wall_seconds", run.wallSeconds},
          {"network_isolated", run.networkIsolated},
          {"processes_isolated", run.processesIsolated},
          {"filesystem_isolated", run.filesystemIsolated},
          {"note", run.note},
          {"stderr_tail", run.stderrText.substr(run.stderrText.size() > 2000 ? run.stderrText.size() - 2000 : 0)}};
}

} // namespace

std::vector<json::object> runHarness(const HarnessJob &job, const ReferenceData &reference,
                                     const HarnessOptions &options, int repeat) {
  std::vector<std::filesystem::path> pending;
  for (const auto &candidate : job.candidates)
    for (int i = 0; i < repeat; ++i)
      pending.push_back(candidate);
  std::vector<json::object> results;
  std::size_t next = 0;
  while (next < pending.size()) {
    sandbox::Result run;
    auto answers = runOnce(job, reference, options,
                           std::vector<std::filesystem::path>(pending.begin() + next, pending.end()), run);
    const json::object account = describe(run);
    for (auto &answer : answers) {
      answer["sandbox"] = account;
      results.push_back(std::move(answer));
    }
    next += answers.size();
    // A harness that exits 3 has answered for the candidate that broke its
    // context; otherwise the first unanswered candidate ended the process.
    const bool answeredThenExited = run.outcome == sandbox::Outcome::Exited && run.exitCode == 3 && !answers.empty();
    if (next < pending.size() && !answeredThenExited) {
      json::object verdict = verdictWithoutAnswer(run, options.limits);
      verdict["sandbox"] = account;
      results.push_back(std::move(verdict));
      ++next;
    }
  }
  return results;
}

} // namespace cudaperf
