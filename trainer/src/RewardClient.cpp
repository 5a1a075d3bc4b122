#include "cudaperf/trainer/RewardClient.h"

#include "cudaperf/contracts/JsonAccess.h"
#include "cudaperf/contracts/Utf8Text.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace cudaperf::trainer {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace json = boost::json;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void sleepFor(double seconds) {
  if (seconds > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

std::chrono::steady_clock::duration duration(double seconds) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

} // namespace

// A daemon marks them (`machine_verdict`: its harness errors, and a no_gpu
// from a daemon that has GPUs: a worker that did not start). A no_gpu from
// a daemon without GPUs is no such verdict: it says it of every correct
// answer, and those unscored answers are what a run against it is for.
bool isMachineVerdict(const json::object &body) {
  const json::value *status = body.if_contains("status");
  const json::value *marked = body.if_contains("machine_verdict");
  return (status && *status == "harness_error") || (marked && marked->is_bool() && marked->as_bool());
}

void readRewardFields(RewardAnswer &answer) {
  const json::object &body = answer.body;
  if (const auto *status = body.if_contains("status"); status && status->is_string())
    answer.status = std::string(status->as_string());
  if (const auto *feedback = body.if_contains("feedback"); feedback && feedback->is_string())
    answer.feedback = std::string(feedback->as_string());
  const json::object *reward = objectAt(&body, "reward");
  answer.reward = numberAt(reward, "total");
  answer.rVer = numberAt(objectAt(reward, "r_ver"), "total");
  answer.rStr = numberAt(reward, "r_str");
  answer.speedup = numberAt(objectAt(&body, "timing"), "speedup");
  answer.speedupVsTorchCompile = numberAt(objectAt(&body, "timing"), "speedup_vs_torch_compile");
}

RewardClient::RewardClient(RewardClientOptions options) : options_(std::move(options)) {
  if (options_.urls.empty())
    throw std::invalid_argument("reward client: no daemon URL");
  for (const auto &url : options_.urls) {
    std::string rest = url.rfind("http://", 0) == 0 ? url.substr(7) : url;
    while (!rest.empty() && rest.back() == '/')
      rest.pop_back();
    if (rest.find('/') != std::string::npos || rest.empty())
      throw std::invalid_argument("reward client: '" + url + "' is not http://HOST:PORT");
    const auto colon = rest.rfind(':');
    Endpoint endpoint;
    endpoint.url = "http://" + rest;
    endpoint.host = colon == std::string::npos ? rest : rest.substr(0, colon);
    endpoint.port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
    endpoints_.push_back(std::move(endpoint));
  }
  const int threads = std::max(1, options_.concurrency);
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] { serve(); });
}

RewardClient::~RewardClient() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto &thread : threads_)
    thread.join();
}

std::future<RewardAnswer> RewardClient::evaluate(RewardRequest request) {
  Job job{std::move(request), {}};
  auto future = job.promise.get_future();
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    ++stats_.requests;
  }
  wake_.notify_one();
  return future;
}

std::vector<RewardAnswer> RewardClient::evaluateAll(const std::vector<RewardRequest> &requests) {
  std::vector<std::future<RewardAnswer>> futures;
  for (const auto &request : requests)
    futures.push_back(evaluate(request));
  std::vector<RewardAnswer> answers;
  for (auto &future : futures)
    answers.push_back(future.get());
  return answers;
}

RewardClientStats RewardClient::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void RewardClient::serve() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty())
        return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    RewardAnswer answer = run(job.request);
    {
      std::lock_guard lock(mutex_);
      ++(answer.ok ? stats_.answered : stats_.failed);
      stats_.retries += static_cast<std::uint64_t>(std::max(0, answer.attempts - 1));
    }
    job.promise.set_value(std::move(answer));
  }
}

std::size_t RewardClient::pickEndpoint() {
  for (;;) {
    double wait = 0;
    {
      std::lock_guard lock(mutex_);
      const double t = now();
      for (std::size_t k = 0; k < endpoints_.size(); ++k) {
        const std::size_t i = (next_ + k) % endpoints_.size();
        if (endpoints_[i].downUntil <= t) {
          next_ = i + 1;
          return i;
        }
      }
      double soonest = endpoints_[0].downUntil;
      for (const auto &e : endpoints_)
        soonest = std::min(soonest, e.downUntil);
      wait = soonest - t;
    }
    sleepFor(std::min(wait, 1.0));
  }
}

void RewardClient::takeOut(std::size_t endpoint) {
  std::lock_guard lock(mutex_);
  endpoints_[endpoint].downUntil = now() + options_.cooldownSeconds;
  ++stats_.endpointsTakenOut;
}

RewardAnswer RewardClient::run(const RewardRequest &request) {
  RewardAnswer answer;
  const double start = now();
  const std::string body = json::serialize(
      json::object{{"task", request.task}, {"source", contracts::validUtf8(request.source)}, {"turn", request.turn}});
  double backoff = 0.5;
  for (int attempt = 1; attempt <= options_.maxAttempts; ++attempt) {
    // Each attempt's answer alone: a machine's verdict read before must not
    // stay beside a later attempt's error.
    answer = RewardAnswer{};
    answer.attempts = attempt;
    const std::size_t index = pickEndpoint();
    const Endpoint endpoint = [&] {
      std::lock_guard lock(mutex_);
      return endpoints_[index];
    }();
    answer.endpoint = endpoint.url;
    double retryAfter = backoff;
    try {
      // Asynchronous operations, one at a time: only they honour the stream's deadlines.
      net::io_context io;
      beast::tcp_stream stream(io);
      beast::error_code failure;
      auto await = [&] {
        io.restart();
        io.run();
        if (failure)
          throw beast::system_error(failure);
      };
      stream.expires_after(duration(options_.connectSeconds));
      stream.async_connect(net::ip::tcp::resolver(io).resolve(endpoint.host, endpoint.port),
                           [&](beast::error_code error, const auto &) { failure = error; });
      await();
      http::request<http::string_body> message{http::verb::post, "/v1/evaluate", 11};
      message.set(http::field::host, endpoint.host);
      message.set(http::field::content_type, "application/json");
      message.body() = body;
      message.prepare_payload();
      stream.expires_after(duration(options_.requestSeconds)); // the write and the whole evaluation
      http::async_write(stream, message, [&](beast::error_code error, std::size_t) { failure = error; });
      await();
      beast::flat_buffer buffer;
      http::response_parser<http::string_body> parser;
      parser.body_limit(64u << 20);
      http::async_read(stream, buffer, parser, [&](beast::error_code error, std::size_t) { failure = error; });
      await();
      const auto &response = parser.get();
      beast::error_code ignored;
      stream.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
      answer.httpStatus = static_cast<int>(response.result_int());
      json::value parsed;
      std::string parseError;
      try {
        parsed = json::parse(response.body());
      } catch (const std::exception &error) {
        parseError = error.what();
      }
      const auto *object = parsed.if_object();
      const bool judged = answer.httpStatus == 200 && object;
      if (judged) {
        answer.body = *object;
        readRewardFields(answer);
        if (!isMachineVerdict(*object)) {
          answer.ok = true;
          answer.error.clear();
          answer.seconds = now() - start;
          return answer;
        }
        // The machine could not judge the answer (no worker, a GPU another
        // process kept busy, a judge that failed): not the completion's doing, so never its reward
        // (0 would beat every failure). The daemon keeps no such verdict:
        // asked again, it judges afresh.
        answer.reward = answer.rVer = answer.rStr = answer.speedup = answer.speedupVsTorchCompile = std::nullopt;
        const json::value *why = object->if_contains("error");
        answer.error = "the daemon at " + endpoint.url + " could not judge the answer (" + answer.status +
                       (why && why->is_string() ? "): " + std::string(why->as_string()) : ")");
      } else {
        // The daemon's errors are {"error": {"code", "message"}}; older ones a string.
        const json::value *why = object ? object->if_contains("error") : nullptr;
        if (why && why->is_object() && why->as_object().if_contains("message"))
          why = why->as_object().if_contains("message");
        answer.error = "HTTP " + std::to_string(answer.httpStatus) + " from " + endpoint.url + ": " +
                       (why && why->is_string() ? std::string(why->as_string())
                        : object                ? json::serialize(*object).substr(0, 500)
                                                : "not JSON (" + parseError + ")");
        if (object)
          answer.body = *object;
      }
      if (answer.httpStatus == 503) {
        // Busy (or refusing to score): as long as it asks, within a bound.
        retryAfter = 1;
        if (auto header = response.find(http::field::retry_after); header != response.end()) {
          try {
            retryAfter = std::stod(std::string(header->value()));
          } catch (const std::exception &) {
          }
        }
        retryAfter = std::clamp(retryAfter, 0.0, options_.maxRetryAfterSeconds);
      } else if (answer.httpStatus < 500 && !judged) {
        answer.seconds = now() - start;
        return answer; // the request's fault: asking again gives the same answer
      }
    } catch (const std::exception &error) {
      answer.httpStatus = 0;
      answer.error = "no answer from " + endpoint.url + ": " + error.what();
      takeOut(index); // unreachable or too slow: the other endpoints take its share for a while
    }
    if (attempt < options_.maxAttempts) {
      sleepFor(retryAfter);
      backoff = std::min(backoff * 2, 10.0);
    }
  }
  answer.seconds = now() - start;
  return answer;
}

} // namespace cudaperf::trainer
