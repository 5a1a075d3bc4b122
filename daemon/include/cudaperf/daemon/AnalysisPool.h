// The daemon's analysis of untrusted sources, in warm analysis servers
// (cudaperf-analysis-server) outside its process: each runs in the sandbox
// (nobody, namespaces, a root view of /usr and its precompiled headers, no
// repository), with an address-space limit, and is killed when an analysis
// runs past its deadline. A Clang crash, a macro bomb or a parse that never
// ends costs that request an error; the daemon starts a fresh server and
// keeps serving the others meanwhile.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/Sandbox.h"

#include <boost/json/object.hpp>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct AnalysisPoolOptions {
  std::filesystem::path server; // cudaperf-analysis-server
  // arch (host pass) or arch:device (device pass) -> .pch; their folder becomes visible.
  std::map<std::string, std::filesystem::path> precompiledHeaders;
  std::vector<std::string> extraArgs; // more Clang flags for every analysis
  unsigned servers = 2;               // analyses at once
  double timeoutSeconds = 10;
  std::uint64_t memoryBytes = 4ull << 30; // RLIMIT_AS of a server
  bool requireIsolation = true;
};

// A task's entry with its arguments at the benchmark size: the analysis sizes
// the launches the entry makes (the blocks and threads features). Empty: none.
struct EntryBinding {
  std::string entry;
  std::vector<std::optional<std::int64_t>> arguments;
  static EntryBinding of(const TaskSpec &task) { return {task.entry, benchmarkEntryArguments(task)}; }
};

class AnalysisPool {
public:
  explicit AnalysisPool(AnalysisPoolOptions options);
  ~AnalysisPool();
  AnalysisPool(const AnalysisPool &) = delete;

  // {"report": the plugin's report JSON} or {"error": why}; blocks until a server is free.
  boost::json::object analyze(const std::string &source, const std::string &fileName, const std::string &arch,
                              const EntryBinding &entry = {});
  std::size_t crashes() const { return crashes_.load(); }
  std::size_t timeouts() const { return timeouts_.load(); }
  const AnalysisPoolOptions &options() const { return options_; }

private:
  struct Server {
    std::unique_ptr<sandbox::Process> process;
    int socket = -1;
    ~Server();
  };
  std::unique_ptr<Server> start(std::string &error) const;
  std::unique_ptr<Server> acquire(std::string &error);
  void release(std::unique_ptr<Server> server); // null: the server is gone

  AnalysisPoolOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Server>> idle_;
  unsigned live_ = 0;
  std::atomic<std::size_t> crashes_{0}, timeouts_{0};
};

// Writes the precompiled CUDA headers for `arch` with the server binary
// (trusted input: only the toolkit's headers), of the host pass or of the
// device pass (precompiledHeaders key "ARCH:device"). "" or the diagnostics.
std::string buildPrecompiledHeaders(const std::filesystem::path &server, const std::string &arch,
                                    const std::filesystem::path &file, bool deviceSide = false);

} // namespace cudaperf
