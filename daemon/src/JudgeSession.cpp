#include "cudaperf/daemon/JudgeSession.h"

#include <boost/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace cudaperf {

namespace json = boost::json;

namespace {

double steadyNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A judge's line is one answer; anything this long is not one.
constexpr std::size_t kMaxLineBytes = 64u << 20;

} // namespace

JudgeSession::JudgeSession(JudgeOptions options, std::size_t maxEvaluations)
    : options_(std::move(options)), maxEvaluations_(std::max<std::size_t>(1, maxEvaluations)) {}

JudgeSession::~JudgeSession() { stop(); }

bool JudgeSession::start(std::string &error) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  // A judge that stops reading must not block the daemon's GPU thread for good.
  const timeval sendTimeout{30, 0};
  setsockopt(ends[0], SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, sizeof sendTimeout);
  sandbox::Request request;
  request.argv = judgeArguments(options_);
  request.argv.insert(request.argv.end(), {"--channel", "3"});
  request.environment = options_.environment;
  request.passDescriptors = {ends[1]};
  sandbox::Limits limits = trustedJudgeLimits();
  limits.cpus = options_.cpus;
  // Its life: at most maxEvaluations evaluations (each under the judge's own
  // deadline); the daemon's per-answer deadline is what stops a hung judge.
  const double perEvaluation = options_.wallSeconds + 30;
  limits.wallSeconds = perEvaluation * static_cast<double>(4 * maxEvaluations_) + 600;
  limits.cpuSeconds = 4 * limits.wallSeconds; // it spins on its GPU waits
  process_ = sandbox::spawn(request, limits, error);
  close(ends[1]);
  if (!process_) {
    close(ends[0]);
    return false;
  }
  channel_ = ends[0];
  received_.clear();
  exiting_ = false;
  evaluations_ = 0;
  startedAt_ = steadyNow();
  ++started_;
  return true;
}

void JudgeSession::stop() {
  process_.reset(); // kills the judge and its workers, and waits for them
  if (channel_ >= 0)
    close(channel_);
  channel_ = -1;
  received_.clear();
}

bool JudgeSession::send(const std::string &bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t put = ::send(channel_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false; // the judge is gone, or stopped reading for 30 s
    sent += static_cast<std::size_t>(put);
  }
  return true;
}

bool JudgeSession::readLine(std::string &line, double deadline) {
  for (;;) {
    if (const auto end = received_.find('\n'); end != std::string::npos) {
      line = received_.substr(0, end);
      received_.erase(0, end + 1);
      return true;
    }
    if (received_.size() > kMaxLineBytes)
      return false;
    const double left = deadline - steadyNow();
    // An ended judge may still have its last answer in the socket: read that first.
    const bool ended = process_->ended();
    if (left <= 0 && !ended)
      return false;
    const auto ready = ended ? std::vector<int>{channel_}
                             : process_->poll({channel_}, static_cast<int>(std::min(left * 1000 + 1, 100.0)));
    if (ready.empty())
      continue;
    char chunk[65536];
    const ssize_t got = recv(channel_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (got > 0)
      received_.append(chunk, static_cast<std::size_t>(got));
    else if (got == 0 || (errno != EAGAIN && errno != EINTR) || ended)
      return false; // closed, or nothing more from an ended judge
  }
}

json::object JudgeSession::runningAccount() const {
  return {{"outcome", "running"},
          {"persistent", true},
          {"evaluations", evaluations_},
          {"judges_started", started_},
          {"wall_seconds", steadyNow() - startedAt_}};
}

json::object JudgeSession::evaluate(const JudgeJob &job, const JudgeCandidate &candidate) {
  // A judge that ended between requests (it exits 3 after answering when its
  // own GPU context failed) or reached its age is replaced first.
  if (process_) {
    process_->poll({}, 0);
    if (process_->ended() || exiting_)
      ++failures_;
    if (process_->ended() || exiting_ || evaluations_ >= maxEvaluations_)
      stop();
  }
  std::string error = "it ended before reading the request";
  // The expected outputs of an imported task's check seed: made when a judge
  // asks for them (needs_expected), then sent with the request again.
  std::shared_ptr<const ReferenceData> expected;
  int attempts = 0;
  while (attempts < 2) {
    if (!process_ && !start(error))
      break;
    const std::string nonce = freshNonce();
    const JudgeRequest request = judgeRequest(job, options_, candidate, nonce, expected.get());
    if (!send(request.header) || !send(*request.expected)) {
      ++failures_;
      ++attempts;
      stop(); // nothing of this candidate ran: a fresh judge takes it
      continue;
    }
    // The candidate's worker, a second one, the baseline's two on the task's
    // first use and the judge's start: the judge keeps each one's deadline.
    const double perEvaluation = options_.wallSeconds + 30;
    const double deadline = steadyNow() + 4 * perEvaluation + 120;
    std::optional<json::object> answer;
    std::string line;
    while (!answer && readLine(line, deadline))
      answer = judgeAnswer(line, nonce);
    const json::value *status = answer ? answer->if_contains("status") : nullptr;
    if (status && *status == "needs_expected" && !expected && candidate.expectedOnRequest) {
      // The task's baseline is checked against the reference first, in this
      // judge; nothing of the candidate ran. Asked once: sent with them now.
      try {
        expected = candidate.expectedOnRequest();
      } catch (const std::exception &problem) {
        return {{"status", "bad_task"}, {"error", problem.what()}, {"judge", runningAccount()}};
      }
      continue;
    }
    if (answer) {
      ++evaluations_;
      // Its own GPU context failed: it exits now, and the next request goes to a fresh judge.
      exiting_ = answer->erase("judge_exits") > 0;
      (*answer)["judge"] = runningAccount();
      return std::move(*answer);
    }
    // No answer: the judge hung or ended on this evaluation. Never the candidate's verdict.
    if (steadyNow() < deadline)
      process_->awaitEnd(1.0); // it closed the channel: its status is on the way
    if (!process_->ended())
      process_->kill(sandbox::Outcome::WallTimeout);
    const sandbox::Result &ended = process_->finish();
    ++failures_;
    json::object verdict = verdictWithoutAnswer(ended, options_.wallSeconds);
    verdict["judge"] = judgeAccount(ended);
    stop();
    return verdict;
  }
  return {{"status", "harness_error"}, {"error", "cannot start the judge: " + error}};
}

std::vector<json::object> JudgeSession::run(const JudgeJob &job) {
  std::vector<json::object> answers;
  for (const JudgeCandidate &candidate : job.candidates)
    answers.push_back(evaluate(job, candidate));
  return answers;
}

} // namespace cudaperf
