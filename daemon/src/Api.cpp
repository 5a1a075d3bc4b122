#include "cudaperf/daemon/Api.h"

#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/contracts/GroupRewards.h"
#include "cudaperf/contracts/JsonFieldReader.h"
#include "cudaperf/contracts/Utf8Text.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace cudaperf {

namespace json = boost::json;

namespace {

// A request field problem: 400 with the field's name in the message.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every request field is read through this: "field 'items[2].task' missing".
const JsonFieldReader &requestFields() {
  static const JsonFieldReader reader([](const std::string &field, const std::string &why) {
    throw FieldError((field.empty() ? std::string("the body") : "field '" + field + "'") + " " + why);
  });
  return reader;
}

std::optional<std::string> optionalString(const json::object &object, const char *key) {
  const json::value *value = requestFields().optional(object, key);
  return value ? std::optional<std::string>(requestFields().string(*value, key)) : std::nullopt;
}

// An answer whose JSON text is ready (an identical request's, from memory or the store).
HttpResponse serializedJsonResponse(const HttpRequest &request, http::status status, std::string body) {
  HttpResponse response{status, request.version()};
  response.set(http::field::content_type, "application/json");
  response.set(http::field::server, "cudaperfd");
  response.keep_alive(request.keep_alive());
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

HttpResponse jsonResponse(const HttpRequest &request, http::status status, const json::value &body) {
  // Valid UTF-8 whatever a text inside came from: one bad byte fails a strict client's whole parse.
  return serializedJsonResponse(request, status, contracts::validUtf8(json::serialize(body)));
}

json::value parseBody(const HttpRequest &request) {
  boost::system::error_code error;
  json::value body = json::parse(request.body(), error);
  if (error)
    throw FieldError("malformed JSON body: " + error.message());
  return body;
}

// An integer >= 1 (a turn), or a failure naming the field.
int positiveInteger(const json::value &value, const std::string &field) {
  const std::int64_t n = requestFields().integer(value, field);
  if (n < 1 || n > std::numeric_limits<int>::max())
    requestFields().fail(field, "must be a positive integer");
  return static_cast<int>(n);
}

// field: "" for the body itself, "items[i]" for an item of a batch.
EvaluationRequest evaluationFrom(const json::value &value, const std::string &field) {
  const JsonFieldReader &fields = requestFields();
  const json::object &object = fields.object(value, field);
  EvaluationRequest request;
  request.task = fields.string(fields.required(object, "task", field), JsonFieldReader::path(field, "task"));
  request.source = fields.string(fields.required(object, "source", field), JsonFieldReader::path(field, "source"));
  if (const auto *turn = object.if_contains("turn"))
    request.turn = positiveInteger(*turn, JsonFieldReader::path(field, "turn"));
  return request;
}

// A non-empty array field of the body.
const json::array &nonEmptyArray(const json::object &object, const char *key) {
  const json::array &items = requestFields().array(requestFields().required(object, key, ""), key);
  if (items.empty())
    requestFields().fail(key, "must not be empty");
  return items;
}

json::object groupReward(const json::value &body) {
  const JsonFieldReader &fields = requestFields();
  const json::object &object = fields.object(body, "");
  const json::array &outcomes = nonEmptyArray(object, "outcomes");
  const json::value *modeField = fields.optional(object, "mode");
  const std::string mode =
      modeField
          ? fields.choice<std::string>(*modeField, "mode", {{"rank", "rank"}, {"grpo", "grpo"}, {"dr_grpo", "dr_grpo"}})
          : "rank";
  std::vector<GroupOutcome> group;
  std::vector<double> scalarRewards;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const std::string field = "outcomes[" + std::to_string(i) + "]";
    const json::object &item = fields.object(outcomes[i], field);
    GroupOutcome outcome;
    // null: a failure; otherwise the turn it passed in.
    const json::value &turn = fields.required(item, "passed_turn", field);
    if (!turn.is_null())
      outcome.passedTurn = positiveInteger(turn, field + ".passed_turn");
    if (const json::value *speedup = fields.optional(item, "speedup"))
      outcome.speedup = fields.number(*speedup, field + ".speedup");
    if (mode != "rank")
      scalarRewards.push_back(fields.number(fields.required(item, "reward", field), field + ".reward"));
    group.push_back(outcome);
  }
  const json::value *tieBreakField = fields.optional(object, "tie_break");
  const bool tieBreak = tieBreakField && fields.boolean(*tieBreakField, "tie_break");
  std::vector<double> rewards, advantages;
  if (mode == "rank") {
    rewards = rankRewards(group, tieBreak);
    advantages = rewards; // rank rewards already sum to zero over the group
  } else {
    rewards = scalarRewards;
    advantages = groupAdvantages(rewards, mode == "grpo" ? AdvantageMode::Grpo : AdvantageMode::DrGrpo);
  }
  json::object answer{{"mode", mode}, {"failures", countFailures(group)}};
  bool admitted = true;
  if (const auto *dcp = object.if_contains("dcp"); dcp && !dcp->is_null()) {
    const json::object &gate = fields.object(*dcp, "dcp");
    DcpGate dcpGate;
    dcpGate.tauMin = static_cast<int>(fields.integer(fields.required(gate, "tau_min", "dcp"), "dcp.tau_min"));
    dcpGate.tauMax = static_cast<int>(fields.integer(fields.required(gate, "tau_max", "dcp"), "dcp.tau_max"));
    admitted = dcpGate.admits(countFailures(group));
    answer["dcp"] = json::object{{"tau_min", dcpGate.tauMin}, {"tau_max", dcpGate.tauMax}, {"admitted", admitted}};
  }
  if (!admitted)
    std::fill(advantages.begin(), advantages.end(), 0.0); // a pruned group contributes no gradient
  answer["rewards"] = json::value_from(rewards);
  answer["advantages"] = json::value_from(advantages);
  answer["admitted"] = admitted;
  return answer;
}

json::object taskSummary(const TaskSpec &task) {
  json::array libraries;
  for (const auto &library : task.allowedLibraries)
    libraries.push_back(json::value(library));
  return {{"name", task.name},
          {"description", task.description},
          {"entry", task.entry},
          {"signature", task.signature},
          {"memory", task.memory == MemoryMode::Device ? "device" : "host"},
          {"allowed_libraries", libraries}};
}

// The endpoint label for metrics: the route, not the raw path.
std::string endpointOf(std::string_view target) {
  for (const char *route :
       {"/v1/analyze", "/v1/evaluate_batch", "/v1/evaluate", "/v1/group_reward", "/healthz", "/metrics"})
    if (target == route)
      return route;
  if (target == "/v1/tasks")
    return "/v1/tasks";
  if (target.rfind("/v1/tasks/", 0) == 0)
    return "/v1/tasks/{name}";
  return "other";
}

} // namespace

Api::Api(Evaluator &evaluator, TaskCatalog &catalog, Metrics &metrics, boost::asio::io_context &io)
    : evaluator_(evaluator), catalog_(catalog), metrics_(metrics), io_(io),
      requestPool_(std::max<std::size_t>(4, std::min<std::size_t>(evaluator.config().queueCapacity, 64))) {
  metrics_.gauge("cudaperf_requests_accepted", "Evaluations accepted and not yet answered (queue bound).",
                 [this] { return static_cast<double>(accepted_.load()); });
}

Api::~Api() { requestPool_.join(); }

void Api::waitForInFlight() {
  while (accepted_.load() > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

HttpResponse Api::error(const HttpRequest &request, http::status status, const std::string &code,
                        const std::string &message) {
  return jsonResponse(request, status, json::object{{"error", json::object{{"code", code}, {"message", message}}}});
}

void Api::handle(HttpRequest &&request, Respond respond) {
  const std::string target(request.target());
  const std::string endpoint = endpointOf(target);
  Respond counted = [this, endpoint, respond = std::move(respond)](HttpResponse &&response) {
    metrics_.countRequest(endpoint, static_cast<int>(response.result_int()));
    respond(std::move(response));
  };
  const auto method = request.method();
  auto allow = [&](http::verb expected) {
    if (method == expected)
      return true;
    auto response = error(request, http::status::method_not_allowed, "method_not_allowed",
                          std::string(request.method_string()) + " is not allowed on " + target + "; use " +
                              std::string(http::to_string(expected)));
    response.set(http::field::allow, http::to_string(expected));
    counted(std::move(response));
    return false;
  };
  try {
    if (target == "/healthz") {
      if (allow(http::verb::get))
        counted(jsonResponse(request, http::status::ok,
                             json::object{{"status", draining_ ? "draining" : "ok"},
                                          {"gpu", evaluator_.gpuAvailable()},
                                          {"analysis", evaluator_.analysisAvailable()},
                                          {"scoring", evaluator_.scoringRefusal().empty() ? "ok" : "refused"},
                                          {"insecure", evaluator_.config().insecureNoIsolation},
                                          {"ranker", evaluator_.rankerLoaded()},
                                          {"tasks", catalog_.tasks().size()},
                                          {"in_flight", accepted_.load()}}));
      return;
    }
    if (target == "/metrics") {
      if (!allow(http::verb::get))
        return;
      HttpResponse response{http::status::ok, request.version()};
      response.set(http::field::content_type, "text/plain; version=0.0.4");
      response.keep_alive(request.keep_alive());
      response.body() = metrics_.render();
      response.prepare_payload();
      counted(std::move(response));
      return;
    }
    if (target == "/v1/tasks") {
      if (!allow(http::verb::get))
        return;
      json::array tasks;
      for (const auto &task : catalog_.tasks())
        tasks.push_back(taskSummary(task));
      counted(jsonResponse(request, http::status::ok, json::object{{"tasks", tasks}}));
      return;
    }
    if (target.rfind("/v1/tasks/", 0) == 0) {
      if (!allow(http::verb::get))
        return;
      const std::string name = target.substr(std::string("/v1/tasks/").size());
      const TaskSpec *task = catalog_.find(name);
      if (!task) {
        counted(error(request, http::status::not_found, "unknown_task", "no task named '" + name + "'"));
        return;
      }
      json::object answer = taskSummary(*task);
      answer["task_json"] = json::parse(catalog_.taskJson(name));
      answer["reference_c"] = fileContents(task->reference); // the C->CUDA prompt's input
      counted(jsonResponse(request, http::status::ok, answer));
      return;
    }
    if (target == "/v1/group_reward") {
      if (allow(http::verb::post))
        counted(jsonResponse(request, http::status::ok, groupReward(parseBody(request))));
      return;
    }
    if (target == "/v1/analyze") {
      if (!allow(http::verb::post))
        return;
      const json::value body = parseBody(request);
      const JsonFieldReader &fields = requestFields();
      const json::object &object = fields.object(body, "");
      const std::string source = fields.string(fields.required(object, "source", ""), "source");
      const std::string fileName = optionalString(object, "filename").value_or("kernel.cu");
      const std::string arch = optionalString(object, "arch").value_or(evaluator_.config().arch);
      const json::value *compileField = fields.optional(object, "compile");
      const bool compile = compileField && fields.boolean(*compileField, "compile");
      if (arch != "sm_80" && arch != "sm_90")
        fields.fail("arch", "must be sm_80 or sm_90");
      // "task": size the launches of that task's entry at its benchmark size (blocks, threads).
      EntryBinding entry;
      const TaskSpec *task = nullptr; // the catalog's, for the daemon's life
      if (const auto taskName = optionalString(object, "task")) {
        task = catalog_.find(*taskName);
        if (!task) {
          counted(error(request, http::status::not_found, "unknown_task", "no task named '" + *taskName + "'"));
          return;
        }
        entry = EntryBinding::of(*task);
      }
      if (!evaluator_.analysisAvailable()) {
        counted(error(request, http::status::service_unavailable, "analysis_unavailable",
                      evaluator_.scoringRefusal().empty()
                          ? "this cudaperfd has no analysis server (built without the Clang development files)"
                          : evaluator_.scoringRefusal()));
        return;
      }
      auto shared = std::make_shared<HttpRequest>(std::move(request));
      boost::asio::post(requestPool_, [this, shared, source, fileName, arch, compile, entry, task, counted]() {
        json::object report = compile ? evaluator_.analyzeAndCompile(source, fileName, arch, entry, task)
                                      : evaluator_.analyze(source, fileName, arch, entry, task);
        counted(jsonResponse(*shared, report.contains("error") ? http::status::unprocessable_entity : http::status::ok,
                             report));
      });
      return;
    }
    if (target == "/v1/evaluate" || target == "/v1/evaluate_batch") {
      if (!allow(http::verb::post))
        return;
      if (!evaluator_.scoringRefusal().empty()) {
        counted(error(request, http::status::service_unavailable, "unisolated", evaluator_.scoringRefusal()));
        return;
      }
      evaluate(std::move(request), counted, target == "/v1/evaluate_batch");
      return;
    }
    counted(error(request, http::status::not_found, "not_found", "no endpoint " + target));
  } catch (const FieldError &problem) {
    counted(error(request, http::status::bad_request, "bad_request", problem.what()));
  } catch (const std::exception &problem) {
    spdlog::error("{} {}: {}", std::string(request.method_string()), target, problem.what());
    counted(error(request, http::status::internal_server_error, "internal", problem.what()));
  }
}

void Api::evaluate(HttpRequest &&request, Respond respond, bool batch) {
  const json::value body = parseBody(request);
  std::vector<EvaluationRequest> items;
  if (batch) {
    const json::array &list = nonEmptyArray(requestFields().object(body, ""), "items");
    for (std::size_t i = 0; i < list.size(); ++i)
      items.push_back(evaluationFrom(list[i], "items[" + std::to_string(i) + "]"));
  } else {
    items.push_back(evaluationFrom(body, ""));
  }
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!catalog_.find(items[i].task)) {
      respond(error(request, http::status::not_found, "unknown_task",
                    "no task named '" + items[i].task + "'" +
                        (batch ? " (items[" + std::to_string(i) + "].task)" : std::string())));
      return;
    }
  // Identical requests answered before: straight from memory or the store, on this thread.
  if (!batch)
    if (auto cached = evaluator_.cachedAnswer(items.front())) {
      respond(serializedJsonResponse(request, http::status::ok, std::move(*cached)));
      return;
    }
  const std::size_t capacity = evaluator_.config().queueCapacity;
  if (draining_ || accepted_.load() + items.size() > capacity) {
    auto response = error(request, http::status::service_unavailable, draining_ ? "draining" : "queue_full",
                          draining_ ? "the daemon is shutting down"
                                    : "the evaluation queue is full (" + std::to_string(capacity) + ")");
    response.set(http::field::retry_after, "5");
    respond(std::move(response));
    return;
  }
  accepted_ += items.size();

  // One answer, whichever comes first: the results or the deadline.
  struct Exchange {
    HttpRequest request;
    Respond respond;
    std::once_flag answered;
    std::vector<json::object> results;
    std::atomic<std::size_t> remaining;
    boost::asio::steady_timer deadline;
    Exchange(HttpRequest r, Respond f, std::size_t n, boost::asio::io_context &io)
        : request(std::move(r)), respond(std::move(f)), results(n), remaining(n), deadline(io) {}
  };
  auto exchange = std::make_shared<Exchange>(std::move(request), std::move(respond), items.size(), io_);
  exchange->deadline.expires_after(
      std::chrono::milliseconds(static_cast<long long>(evaluator_.config().requestDeadlineSeconds * 1000)));
  exchange->deadline.async_wait([exchange](const boost::system::error_code &cancelled) {
    if (cancelled)
      return;
    std::call_once(exchange->answered, [&] {
      exchange->respond(error(exchange->request, http::status::gateway_timeout, "deadline",
                              "the evaluation did not finish before the request deadline; it continues, and "
                              "the same request will be answered from the store once it is done"));
    });
  });
  for (std::size_t i = 0; i < items.size(); ++i)
    boost::asio::post(requestPool_, [this, exchange, i, item = items[i], batch]() {
      json::object result;
      try {
        result = evaluator_.evaluate(item);
      } catch (const std::exception &problem) {
        result = {{"status", "harness_error"}, {"error", problem.what()}, {"machine_verdict", true}};
      }
      --accepted_;
      exchange->results[i] = std::move(result);
      if (--exchange->remaining > 0)
        return;
      boost::asio::post(io_, [exchange] { exchange->deadline.cancel(); });
      std::call_once(exchange->answered, [&] {
        json::value answer;
        if (batch) {
          json::array list;
          for (auto &r : exchange->results)
            list.push_back(std::move(r));
          answer = json::object{{"results", list}};
        } else {
          answer = std::move(exchange->results.front());
        }
        exchange->respond(jsonResponse(exchange->request, http::status::ok, answer));
      });
    });
}

} // namespace cudaperf
