// The trainer's client of cudaperfd: POST /v1/evaluate to one or more daemon
// URLs with bounded concurrency, requests spread round-robin over the
// endpoints that answer; 503 retried after its Retry-After, other 5xx and
// transport failures retried with backoff elsewhere; an endpoint that fails to
// connect or times out is taken out of rotation for a cool-down and tried
// again after it. Every answer keeps the daemon's whole JSON (every reward
// component). No LibTorch here.
#pragma once

#include <boost/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cudaperf::trainer {

struct RewardClientOptions {
  std::vector<std::string> urls{"http://127.0.0.1:8742"};
  int concurrency = 8;         // requests in flight at most (one thread each)
  double connectSeconds = 5;   // per attempt
  double requestSeconds = 900; // per attempt: an evaluation compiles, checks and times
  int maxAttempts = 6;         // per request, over all endpoints
  double cooldownSeconds = 30; // an endpoint that failed stays out of rotation this long
  double maxRetryAfterSeconds = 60;
};

struct RewardRequest {
  std::string task;
  std::string source;
  int turn = 1;
};

struct RewardAnswer {
  bool ok = false;    // an HTTP 200 with a JSON object whose status is not the machine's (isMachineVerdict)
  int httpStatus = 0; // 0: no HTTP answer at all
  std::string error;  // why not ok
  boost::json::object body;
  std::string endpoint;
  int attempts = 0;
  double seconds = 0;
  // From the body, for the trainer's convenience (nullopt/empty when absent).
  std::string status;   // ok, wrong_answer, compile_error, rejected, ...
  std::string feedback; // the text a refinement turn shows the policy
  std::optional<double> reward, rVer, rStr, speedup;
  std::optional<double> speedupVsTorchCompile; // imported KernelBench tasks with a torch.compile timing
};

struct RewardClientStats {
  std::uint64_t requests = 0, answered = 0, failed = 0, retries = 0, endpointsTakenOut = 0;
};

class RewardClient {
public:
  explicit RewardClient(RewardClientOptions options);
  ~RewardClient();
  RewardClient(const RewardClient &) = delete;
  RewardClient &operator=(const RewardClient &) = delete;

  std::future<RewardAnswer> evaluate(RewardRequest request);
  // All at once, in order; at most `concurrency` in flight.
  std::vector<RewardAnswer> evaluateAll(const std::vector<RewardRequest> &requests);
  RewardClientStats stats() const;

private:
  struct Endpoint {
    std::string url, host, port;
    double downUntil = 0;
  };
  struct Job {
    RewardRequest request;
    std::promise<RewardAnswer> promise;
  };
  void serve();
  RewardAnswer run(const RewardRequest &request);
  // The next endpoint in rotation (waits for the soonest back when all are out).
  std::size_t pickEndpoint();
  void takeOut(std::size_t endpoint);

  RewardClientOptions options_;
  std::vector<Endpoint> endpoints_;
  std::size_t next_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  RewardClientStats stats_;
  std::vector<std::thread> threads_;
};

// The answer's fields the trainer reads, from a daemon JSON body.
void readRewardFields(RewardAnswer &answer);

// An answer that is the machine's verdict, not the completion's (status
// harness_error, or `machine_verdict` true): the client asks again, and
// after its last attempt the answer is not ok.
bool isMachineVerdict(const boost::json::object &body);

} // namespace cudaperf::trainer
