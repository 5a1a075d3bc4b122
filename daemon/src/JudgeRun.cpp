#include "cudaperf/daemon/JudgeRun.h"

#include <boost/json.hpp>

#include <algorithm>
#include <random>
#include <sstream>

namespace cudaperf {

namespace json = boost::json;

bool correctnessFromBaseline(const JudgeJob &job) {
  return job.baseline && job.task->eagerBaseline && !job.task->baseline;
}

int JudgeJob::effectiveTrials() const {
  return trials > 0 ? trials : std::max<int>(2, static_cast<int>(distributionCount(*task)));
}

json::object verdictWithoutAnswer(const sandbox::Result &run, double wallSeconds) {
  std::ostringstream text;
  text << "the judge ended without answering (" << sandbox::toString(run.outcome);
  if (run.outcome == sandbox::Outcome::Exited)
    text << ", status " << run.exitCode;
  if (run.signal)
    text << ", signal " << run.signal;
  text << " after " << run.wallSeconds << " s, limit " << wallSeconds << " s per evaluation)";
  if (!run.note.empty())
    text << ": " << run.note;
  // What the judge printed (a hostile worker's bytes may be in it).
  if (!run.stderrText.empty())
    text << "; its last words: " << sandbox::printableTail(run.stderrText, 800);
  return {{"status", "harness_error"}, {"error", text.str()}};
}

sandbox::Limits trustedJudgeLimits() {
  // The judge is trusted and puts its workers into namespaces itself: it runs
  // as the daemon's user, in the daemon's namespaces, with its own deadline.
  sandbox::Limits limits;
  limits.isolateNetwork = limits.isolateProcesses = limits.dropPrivileges = false;
  limits.requireIsolation = false;
  limits.openFiles = 4096;
  limits.processes = 1 << 20;
  // The judge's host buffers and a reference's arguments are memory files, as large as the task's
  // arguments (GBs at KernelBench's sizes); past RLIMIT_FSIZE their ftruncate kills the judge (SIGXFSZ).
  limits.fileSizeBytes = 1ull << 40;
  limits.outputBytes = 64 << 20;
  return limits;
}

std::vector<std::string> judgeArguments(const JudgeOptions &options) {
  std::vector<std::string> argv = {std::filesystem::absolute(options.judge).string(), "--device",
                                   options.cuda ? "cuda" : "none"};
  if (!options.worker.empty())
    argv.insert(argv.end(), {"--worker", std::filesystem::absolute(options.worker).string()});
  for (const auto &path : options.hiddenPaths)
    argv.insert(argv.end(), {"--hide", path});
  if (!options.requireIsolation)
    argv.push_back("--insecure-no-isolation");
  return argv;
}

std::string freshNonce() {
  thread_local std::random_device entropy;
  std::ostringstream nonce;
  nonce << std::hex << entropy() << entropy() << entropy() << entropy();
  return nonce.str();
}

JudgeRequest judgeRequest(const JudgeJob &job, const JudgeOptions &options, const JudgeCandidate &candidate,
                          const std::string &nonce, const ReferenceData *expected) {
  const ReferenceData &reference = *candidate.reference;
  const bool onRequest = candidate.expectedSeed != 0 && candidate.expectedOnRequest && !expected;
  static const std::string none;
  const std::string &blob = onRequest ? none : (expected ? *expected : reference).expectedBlob; // bound, not copied
  json::object line{{"task_json", job.taskJson},
                    {"task_name", job.task->name},
                    {"candidate", std::filesystem::weakly_canonical(candidate.library).string()},
                    {"nonce", nonce},
                    {"seed", candidate.seed},
                    {"trials", job.effectiveTrials()},
                    {"warmup", job.warmup},
                    {"runs", job.runs},
                    {"min_runs", job.minRuns},
                    {"median_half_width", job.medianHalfWidth},
                    {"skip_timing", job.skipTiming},
                    {"min_gpu_share", job.minGpuShare},
                    {"wall_seconds", options.wallSeconds},
                    {"baseline_max_age_seconds", options.baselineMaxAgeSeconds},
                    {"pause_starting_workers", options.pauseStartingWorkers},
                    {"cpu_baseline_ms", reference.cpuBaselineMs},
                    {"expected_bytes", blob.size()}};
  if (job.baseline)
    line["baseline"] = std::filesystem::weakly_canonical(*job.baseline).string();
  if (candidate.expectedSeed != 0)
    line["expected_seed"] = candidate.expectedSeed;
  if (onRequest)
    line["expected_on_request"] = true;
  if (job.reference)
    line["reference"] = std::filesystem::weakly_canonical(*job.reference).string();
  return {json::serialize(line) + "\n", &blob};
}

std::optional<json::object> judgeAnswer(const std::string &text, const std::string &nonce) {
  boost::system::error_code error;
  json::value answer = json::parse(text, error);
  if (error || !answer.is_object())
    return std::nullopt;
  json::object &object = answer.get_object();
  const auto *given = object.if_contains("nonce");
  if (!given || !given->is_string() || given->get_string() != nonce)
    return std::nullopt;
  object.erase("nonce");
  return std::move(object);
}

namespace {

// One judge process over `candidates`; returns the answers it gave (a prefix,
// in order) and how it ended.
std::vector<json::object> runOnce(const JudgeJob &job, const JudgeOptions &options,
                                  const std::vector<const JudgeCandidate *> &candidates, sandbox::Result &run) {
  std::vector<std::string> nonces;
  sandbox::Request request;
  request.argv = judgeArguments(options);
  request.environment = options.environment;
  for (const JudgeCandidate *candidate : candidates) {
    nonces.push_back(freshNonce());
    // One stdin written ahead: no later request to answer needs_expected with, so made now.
    std::shared_ptr<const ReferenceData> expected;
    if (candidate->expectedSeed != 0 && candidate->expectedOnRequest)
      expected = candidate->expectedOnRequest();
    const JudgeRequest parts = judgeRequest(job, options, *candidate, nonces.back(), expected.get());
    request.stdinData += parts.header;
    request.stdinData += *parts.expected;
  }
  sandbox::Limits limits = trustedJudgeLimits();
  // Start-up (CUDA context, the baseline's timing) plus each evaluation.
  const double perEvaluation = options.wallSeconds + 30;
  limits.stdoutSilenceSeconds = 2 * perEvaluation + 120;
  limits.wallSeconds = perEvaluation * static_cast<double>(candidates.size()) + 2 * perEvaluation + 120;
  limits.cpuSeconds = 4 * limits.wallSeconds; // the judge spins on its GPU waits
  run = sandbox::run(request, limits);

  // An answer counts only with its request's nonce, in order.
  std::vector<json::object> answers;
  std::istringstream lines(run.stdoutText);
  std::string text;
  while (answers.size() < nonces.size() && std::getline(lines, text))
    if (auto answer = judgeAnswer(text, nonces[answers.size()]))
      answers.push_back(std::move(*answer));
  return answers;
}

} // namespace

json::object judgeAccount(const sandbox::Result &run) {
  return {{"outcome", sandbox::toString(run.outcome)},
          {"exit_code", run.exitCode},
          {"wall_seconds", run.wallSeconds},
          {"stderr_tail", sandbox::printableTail(run.stderrText, 2000)}};
}

std::vector<json::object> runJudge(const JudgeJob &job, const JudgeOptions &options, int repeat) {
  std::vector<const JudgeCandidate *> pending;
  for (const auto &candidate : job.candidates)
    for (int i = 0; i < repeat; ++i)
      pending.push_back(&candidate);
  std::vector<json::object> results;
  std::size_t next = 0;
  while (next < pending.size()) {
    sandbox::Result run;
    auto answers = runOnce(job, options, {pending.begin() + next, pending.end()}, run);
    const json::object account = judgeAccount(run);
    for (auto &answer : answers) {
      answer.erase("judge_exits"); // the exit status says so too
      answer["judge"] = account;
      results.push_back(std::move(answer));
    }
    next += answers.size();
    // A judge that exits 3 has answered for the candidate it was on;
    // otherwise the first unanswered candidate is told the judge failed.
    const bool answeredThenExited = run.outcome == sandbox::Outcome::Exited && run.exitCode == 3 && !answers.empty();
    if (next < pending.size() && !answeredThenExited) {
      json::object verdict = verdictWithoutAnswer(run, options.wallSeconds);
      verdict["judge"] = account;
      results.push_back(std::move(verdict));
      ++next;
    }
  }
  return results;
}

} // namespace cudaperf
