// The reward client against small HTTP servers scripted here (busy, broken,
// slow, dead): what it retries, what it does not, how it spreads requests and
// bounds concurrency. The real daemon is in the integration tests.
#include "cudaperf/trainer/RewardClient.h"

#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

using namespace cudaperf::trainer;
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

namespace {

struct Reply {
  int status = 200;
  std::string body = "{}";
  std::string retryAfter;
  double delaySeconds = 0;
};

// Answers each request with script(n, body) on a thread per connection.
class ScriptedServer {
public:
  explicit ScriptedServer(std::function<Reply(int, const std::string &)> script)
      : script_(std::move(script)), acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] {
      for (;;) {
        net::ip::tcp::socket socket(io_);
        beast::error_code error;
        acceptor_.accept(socket, error);
        if (error || stopping_)
          return;
        workers_.emplace_back([this, s = std::move(socket)]() mutable { handle(std::move(s)); });
      }
    });
  }
  ~ScriptedServer() {
    stopping_ = true;
    beast::error_code ignored;
    net::ip::tcp::socket poke(io_);
    poke.connect({net::ip::make_address("127.0.0.1"), port()}, ignored);
    thread_.join();
    for (auto &w : workers_)
      w.join();
  }
  unsigned short port() const { return acceptor_.local_endpoint().port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  int requests() const { return count_; }
  int mostAtOnce() const { return most_; }

private:
  void handle(net::ip::tcp::socket socket) {
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    beast::error_code error;
    http::read(socket, buffer, request, error);
    if (error)
      return;
    const int n = count_++;
    const int inFlight = ++current_;
    for (int seen = most_; inFlight > seen && !most_.compare_exchange_weak(seen, inFlight);)
      ;
    Reply reply = script_(n, request.body());
    std::this_thread::sleep_for(std::chrono::duration<double>(reply.delaySeconds));
    --current_;
    http::response<http::string_body> response{static_cast<http::status>(reply.status), 11};
    response.set(http::field::content_type, "application/json");
    if (!reply.retryAfter.empty())
      response.set(http::field::retry_after, reply.retryAfter);
    response.body() = reply.body;
    response.prepare_payload();
    http::write(socket, response, error);
  }

  std::function<Reply(int, const std::string &)> script_;
  net::io_context io_;
  net::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> count_{0}, current_{0}, most_{0};
};

const char *kOkBody = R"({"status":"ok","feedback":"all 5 tests passed",)"
                      R"("timing":{"speedup":2.5,"speedup_vs_torch_compile":1.25},)"
                      R"("reward":{"total":3.25,"r_ver":{"total":2.75},"r_str":0.5}})";

RewardClientOptions quick(std::vector<std::string> urls) {
  RewardClientOptions o;
  o.urls = std::move(urls);
  o.concurrency = 2;
  o.connectSeconds = 1;
  o.requestSeconds = 5;
  o.maxAttempts = 4;
  o.cooldownSeconds = 60;
  return o;
}

TEST(RewardClientTest, ReadsEveryRewardComponent) {
  std::string seen;
  ScriptedServer server([&](int, const std::string &body) {
    seen = body;
    return Reply{200, kOkBody};
  });
  RewardClient client(quick({server.url()}));
  auto answer = client.evaluate({"vector_add", "__global__ void k() {}", 2}).get();
  ASSERT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.status, "ok");
  EXPECT_EQ(answer.feedback, "all 5 tests passed");
  EXPECT_DOUBLE_EQ(*answer.reward, 3.25);
  EXPECT_DOUBLE_EQ(*answer.rVer, 2.75);
  EXPECT_DOUBLE_EQ(*answer.rStr, 0.5);
  EXPECT_DOUBLE_EQ(*answer.speedup, 2.5);
  EXPECT_DOUBLE_EQ(*answer.speedupVsTorchCompile, 1.25);
  EXPECT_EQ(answer.attempts, 1);
  auto request = boost::json::parse(seen).as_object();
  EXPECT_EQ(request.at("task").as_string(), "vector_add");
  EXPECT_EQ(request.at("turn").as_int64(), 2);
}

TEST(RewardClientTest, BusyAnswersAreRetriedAfterTheirRetryAfter) {
  ScriptedServer server([](int n, const std::string &) {
    return n < 2 ? Reply{503, R"({"error":"queue full"})", "0"} : Reply{200, kOkBody};
  });
  RewardClient client(quick({server.url()}));
  auto answer = client.evaluate({"t", "s", 1}).get();
  EXPECT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.attempts, 3);
  EXPECT_EQ(client.stats().retries, 2u);
}

// A verdict that is the machine's (a GPU another process kept busy, no
// worker: harness_error) is asked for again, and never read as the answer's reward: the
// harness_error body carries a total of 0, better than any failure's.
TEST(RewardClientTest, AMachineVerdictIsAskedAgainNotScored) {
  ScriptedServer server([](int n, const std::string &) {
    if (n == 0)
      return Reply{200, R"({"status":"harness_error","error":"gpu_contended: the baseline saw it too",)"
                        R"("reward":{"total":0.0}})"};
    if (n == 1)
      return Reply{200, R"({"status":"harness_error","error":"cannot start a worker","reward":{"total":0.0}})"};
    return Reply{200, kOkBody};
  });
  RewardClient client(quick({server.url()}));
  auto answer = client.evaluate({"t", "s", 1}).get();
  ASSERT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.status, "ok");
  EXPECT_DOUBLE_EQ(*answer.reward, 3.25);
  EXPECT_EQ(answer.attempts, 3);
}

TEST(RewardClientTest, AMachineVerdictToTheLastAttemptIsNoAnswer) {
  ScriptedServer server([](int, const std::string &) {
    return Reply{200, R"({"status":"harness_error","error":"cannot start a worker","reward":{"total":0.0}})"};
  });
  RewardClient client(quick({server.url()}));
  auto answer = client.evaluate({"t", "s", 1}).get();
  EXPECT_FALSE(answer.ok);
  EXPECT_EQ(answer.httpStatus, 200);
  EXPECT_FALSE(answer.reward.has_value()); // no 0 for the trainer to take
  EXPECT_EQ(answer.status, "harness_error");
  EXPECT_NE(answer.error.find("cannot start a worker"), std::string::npos) << answer.error;
  EXPECT_EQ(server.requests(), 4);
}

// A no_gpu is the machine's only where the daemon says so: one from a
// daemon with GPUs (a worker that did not start) is asked again; one from a
// daemon without GPUs is its answer (unscored, compile verdicts and R_str).
TEST(RewardClientTest, ANoGpuIsAskedAgainOnlyWhenTheDaemonMarksItTheMachines) {
  ScriptedServer marked([](int n, const std::string &) {
    return n == 0 ? Reply{200, R"({"status":"no_gpu","machine_verdict":true,"reward":{"total":0.4}})"}
                  : Reply{200, kOkBody};
  });
  RewardClient client(quick({marked.url()}));
  auto answer = client.evaluate({"t", "s", 1}).get();
  ASSERT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.status, "ok");
  EXPECT_EQ(answer.attempts, 2);

  ScriptedServer gpuless([](int, const std::string &) {
    return Reply{200, R"({"status":"no_gpu","reward":{"total":0.4,"r_ver":null,"r_str":0.4}})"};
  });
  RewardClient other(quick({gpuless.url()}));
  auto unscored = other.evaluate({"t", "s", 1}).get();
  ASSERT_TRUE(unscored.ok) << unscored.error;
  EXPECT_EQ(unscored.status, "no_gpu");
  EXPECT_DOUBLE_EQ(*unscored.reward, 0.4);
  EXPECT_EQ(gpuless.requests(), 1);
}

TEST(RewardClientTest, SourcesThatAreNotUtf8StillMakeValidJson) {
  std::string seen;
  ScriptedServer server([&](int, const std::string &body) {
    seen = body;
    return Reply{200, kOkBody};
  });
  RewardClient client(quick({server.url()}));
  const std::string bytes("ok \xC3\xA9 bad \xFF\xC3 end \xED\xA0\x80", 20);
  ASSERT_TRUE(client.evaluate({"t", bytes, 1}).get().ok);
  const auto source = std::string(boost::json::parse(seen).as_object().at("source").as_string());
  // Valid é kept; a stray byte, a cut sequence and an encoded surrogate replaced byte by byte.
  EXPECT_EQ(source, "ok \xC3\xA9 bad \xEF\xBF\xBD\xEF\xBF\xBD end \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(RewardClientTest, ABadRequestIsNotRetried) {
  ScriptedServer server([](int, const std::string &) {
    return Reply{400, R"({"error":{"code":"bad_request","message":"unknown task 'nope'"}})"};
  });
  RewardClient client(quick({server.url()}));
  auto answer = client.evaluate({"nope", "s", 1}).get();
  EXPECT_FALSE(answer.ok);
  EXPECT_EQ(answer.httpStatus, 400);
  EXPECT_NE(answer.error.find("unknown task 'nope'"), std::string::npos) << answer.error;
  EXPECT_EQ(server.requests(), 1);
}

TEST(RewardClientTest, ADeadEndpointIsTakenOutAndTheLiveOneServes) {
  std::string deadUrl;
  {
    ScriptedServer gone([](int, const std::string &) { return Reply{}; });
    deadUrl = gone.url(); // closed when this scope ends: connections are refused
  }
  ScriptedServer live([](int, const std::string &) { return Reply{200, kOkBody}; });
  auto options = quick({deadUrl, live.url()});
  options.concurrency = 1; // one request at a time: the first finds the dead one
  RewardClient client(options);
  std::vector<RewardRequest> requests(6, RewardRequest{"t", "s", 1});
  for (const auto &answer : client.evaluateAll(requests))
    EXPECT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(live.requests(), 6);
  EXPECT_EQ(client.stats().endpointsTakenOut, 1u); // once, then out of rotation for the cool-down
}

TEST(RewardClientTest, RequestsSpreadOverEndpointsWithinTheConcurrencyBound) {
  ScriptedServer a([](int, const std::string &) { return Reply{200, kOkBody, "", 0.05}; });
  ScriptedServer b([](int, const std::string &) { return Reply{200, kOkBody, "", 0.05}; });
  auto options = quick({a.url(), b.url()});
  options.concurrency = 3;
  RewardClient client(options);
  std::vector<RewardRequest> requests(12, RewardRequest{"t", "s", 1});
  for (const auto &answer : client.evaluateAll(requests))
    EXPECT_TRUE(answer.ok);
  EXPECT_EQ(a.requests() + b.requests(), 12);
  EXPECT_GE(a.requests(), 4);
  EXPECT_GE(b.requests(), 4);
  EXPECT_LE(a.mostAtOnce(), 3); // never more in flight than the bound
  EXPECT_LE(b.mostAtOnce(), 3);
}

TEST(RewardClientTest, ASlowEndpointTimesOutAndTheAnswerSaysSo) {
  ScriptedServer slow([](int, const std::string &) { return Reply{200, kOkBody, "", 1.5}; });
  auto options = quick({slow.url()});
  options.requestSeconds = 0.3;
  options.maxAttempts = 1;
  RewardClient client(options);
  auto answer = client.evaluate({"t", "s", 1}).get();
  EXPECT_FALSE(answer.ok);
  EXPECT_EQ(answer.httpStatus, 0);
  EXPECT_NE(answer.error.find("no answer from"), std::string::npos) << answer.error;
}

TEST(RewardClientTest, RefusesAUrlItCannotUse) {
  EXPECT_THROW(RewardClient(quick({"http://host:1/v1"})), std::invalid_argument);
  EXPECT_THROW(RewardClient(quick({})), std::invalid_argument);
}

} // namespace
