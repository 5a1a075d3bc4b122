#include "cudaperf/daemon/AnalysisPool.h"

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <cstring>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace cudaperf {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxAnswerBytes = 64 << 20;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

bool sendAll(int fd, const std::string &data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t put = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (put <= 0)
      return false;
    done += static_cast<std::size_t>(put);
  }
  return true;
}

} // namespace

AnalysisPool::Server::~Server() {
  if (socket >= 0)
    close(socket);
}

AnalysisPool::AnalysisPool(AnalysisPoolOptions options) : options_(std::move(options)) {
  if (options_.servers < 1)
    options_.servers = 1;
  // Warm before the first request.
  for (unsigned i = 0; i < options_.servers; ++i) {
    std::string error;
    if (auto server = start(error)) {
      idle_.push_back(std::move(server));
      ++live_;
    }
  }
}

AnalysisPool::~AnalysisPool() {
  std::lock_guard lock(mutex_);
  idle_.clear();
}

std::unique_ptr<AnalysisPool::Server> AnalysisPool::start(std::string &error) const {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return nullptr;
  }
  sandbox::Request request;
  request.argv = {std::filesystem::absolute(options_.server).string()};
  sandbox::Limits limits;
  limits.niceness = 10; // second to the GPU's judge and worker
  limits.rootView = sandbox::systemRootView();
  limits.rootView.push_back(std::filesystem::weakly_canonical(options_.server).parent_path().string());
  for (const auto &[arch, file] : options_.precompiledHeaders) {
    request.argv.insert(request.argv.end(), {"--pch", arch + "=" + file.string()});
    limits.rootView.push_back(std::filesystem::weakly_canonical(file).parent_path().string());
  }
  for (const auto &arg : options_.extraArgs)
    request.argv.insert(request.argv.end(), {"--arg", arg});
  request.passDescriptors = {ends[1]};
  // The pool keeps the clock; the server lives for many requests.
  limits.wallSeconds = 1e9;
  limits.cpuSeconds = 1e8;
  limits.addressSpaceBytes = options_.memoryBytes;
  limits.openFiles = 1024;
  limits.processes = 256; // Clang needs a few threads; nobody's other sandboxes keep their share
  limits.privateTmpBytes = 64ull << 20;
  limits.requireIsolation = options_.requireIsolation;
  auto server = std::make_unique<Server>();
  server->process = sandbox::spawn(request, limits, error);
  close(ends[1]);
  if (!server->process) {
    close(ends[0]);
    return nullptr;
  }
  server->socket = ends[0];
  return server;
}

std::unique_ptr<AnalysisPool::Server> AnalysisPool::acquire(std::string &error) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !idle_.empty() || live_ < options_.servers; });
  if (!idle_.empty()) {
    auto server = std::move(idle_.back());
    idle_.pop_back();
    return server;
  }
  ++live_;
  lock.unlock();
  auto server = start(error);
  if (!server) {
    lock.lock();
    --live_;
    changed_.notify_one();
  }
  return server;
}

void AnalysisPool::release(std::unique_ptr<Server> server) {
  std::lock_guard lock(mutex_);
  if (server && !server->process->ended())
    idle_.push_back(std::move(server));
  else
    --live_;
  changed_.notify_one();
}

json::object AnalysisPool::analyze(const std::string &source, const std::string &fileName, const std::string &arch,
                                   const EntryBinding &entry) {
  std::string error;
  std::unique_ptr<Server> server = acquire(error);
  if (!server)
    return {{"error", "the analysis server could not be started: " + error}};
  json::object request{{"source_bytes", source.size()}, {"file", fileName}, {"arch", arch}};
  if (!entry.entry.empty()) {
    json::array arguments;
    for (const auto &value : entry.arguments)
      arguments.push_back(value ? json::value(*value) : json::value(nullptr));
    request["entry"] = entry.entry;
    request["entry_args"] = std::move(arguments);
  }
  const std::string header = json::serialize(request) + "\n";
  if (!sendAll(server->socket, header) || !sendAll(server->socket, source)) {
    release(nullptr);
    return {{"error", "the analysis server closed its socket"}};
  }
  const double deadline = now() + options_.timeoutSeconds;
  std::string answer;
  char buffer[65536];
  while (answer.find('\n') == std::string::npos) {
    const double left = deadline - now();
    if (left <= 0) {
      server->process->kill();
      ++timeouts_;
      release(nullptr);
      std::ostringstream limit;
      limit << options_.timeoutSeconds;
      return {{"error", "the analysis did not finish within " + limit.str() +
                            " s (a parse that runs away, such as a macro that expands without bound) and was "
                            "stopped"}};
    }
    const auto ready = server->process->poll({server->socket}, static_cast<int>(std::min(left * 1000 + 1, 100.0)));
    if (!ready.empty()) {
      const ssize_t got = recv(server->socket, buffer, sizeof buffer, MSG_DONTWAIT);
      if (got > 0) {
        answer.append(buffer, static_cast<std::size_t>(got));
        if (answer.size() > kMaxAnswerBytes)
          server->process->kill();
        continue;
      }
    }
    if (server->process->ended() || !ready.empty()) {
      server->process->awaitEnd(2); // the socket closed first: let the status say how it ended
      const sandbox::Result &run = server->process->finish();
      ++crashes_;
      release(nullptr);
      std::string how = run.signal
                            ? "killed by signal " + std::to_string(run.signal) + " (" + strsignal(run.signal) + ")"
                            : "exited with status " + std::to_string(run.exitCode);
      return {{"error", "the analysis crashed (" + how + ", within its memory limit of " +
                            std::to_string(options_.memoryBytes >> 20) + " MiB): Clang could not parse this source"}};
    }
  }
  release(std::move(server));
  boost::system::error_code parseError;
  json::value parsed = json::parse(answer.substr(0, answer.find('\n')), parseError);
  if (parseError || !parsed.is_object())
    return {{"error", "the analysis server answered garbage"}};
  return std::move(parsed.as_object());
}

std::string buildPrecompiledHeaders(const std::filesystem::path &server, const std::string &arch,
                                    const std::filesystem::path &file, bool deviceSide) {
  sandbox::Request request;
  request.argv = {std::filesystem::absolute(server).string(),
                  "--build-pch",
                  std::filesystem::absolute(file).string(),
                  "--arch",
                  arch,
                  "--side",
                  deviceSide ? "device" : "host"};
  sandbox::Limits limits; // trusted input (only the toolkit's headers): no isolation needed
  limits.isolateNetwork = limits.isolateProcesses = limits.dropPrivileges = false;
  limits.requireIsolation = false;
  limits.wallSeconds = limits.cpuSeconds = 300;
  limits.fileSizeBytes = 1ull << 30;
  const sandbox::Result run = sandbox::run(request, limits);
  if (run.succeeded())
    return "";
  return run.stderrText.empty() ? std::string(sandbox::toString(run.outcome)) + " " + run.note : run.stderrText;
}

} // namespace cudaperf
