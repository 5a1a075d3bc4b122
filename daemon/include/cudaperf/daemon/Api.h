// The HTTP API of cudaperfd (docs/api.md): routing, request validation
// (errors name the field), the deadline and queue limits, and the JSON
// answers. Transport-independent: HttpServer feeds it parsed requests.
#pragma once

#include "cudaperf/daemon/Evaluator.h"
#include "cudaperf/daemon/Metrics.h"
#include "cudaperf/daemon/TaskCatalog.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <functional>

namespace cudaperf {

namespace http = boost::beast::http;
using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
using Respond = std::function<void(HttpResponse &&)>;

class Api {
public:
  Api(Evaluator &evaluator, TaskCatalog &catalog, Metrics &metrics, boost::asio::io_context &io);
  ~Api();

  // Answers through `respond`, exactly once, from any thread.
  void handle(HttpRequest &&request, Respond respond);
  // Refuse new work (503) while what is in flight finishes.
  void startDraining() { draining_ = true; }
  bool draining() const { return draining_; }
  // Waits until no evaluation is running (graceful drain).
  void waitForInFlight();

  static HttpResponse error(const HttpRequest &request, http::status status, const std::string &code,
                            const std::string &message);

private:
  void evaluate(HttpRequest &&request, Respond respond, bool batch);
  Evaluator &evaluator_;
  TaskCatalog &catalog_;
  Metrics &metrics_;
  boost::asio::io_context &io_;
  boost::asio::thread_pool requestPool_; // evaluations wait here (compile, GPU queue), not on I/O threads
  std::atomic<bool> draining_{false};
  std::atomic<std::size_t> accepted_{0}; // evaluations accepted and not answered (queue bound)
};

} // namespace cudaperf
