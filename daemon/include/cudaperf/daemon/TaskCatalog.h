// The bundled tasks as the daemon serves them: specs loaded and validated at
// start, and per task (on first use, once) the reference compiled with cc
// and the GPU baseline compiled through the sandboxed compiler (an imported
// KernelBench task's PyTorch eager shim with cc, against libcudaperf-eager).
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/CandidateCompiler.h"

#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct PreparedTask {
  const TaskSpec *spec = nullptr;
  std::string taskJson;
  std::filesystem::path reference;               // compiled reference.c
  std::optional<std::filesystem::path> baseline; // compiled baseline.cu, or baseline_eager.c
  bool eagerBaseline = false;                    // the baseline is PyTorch eager (an imported task)
  std::string error;                             // why preparing failed (then the task cannot be evaluated)
};

class TaskCatalog {
public:
  // Throws TaskError for an invalid task (the message names task, file and field).
  TaskCatalog(const std::filesystem::path &tasksDir, const std::filesystem::path &cacheDir,
              CandidateCompiler &compiler);

  const std::vector<TaskSpec> &tasks() const { return tasks_; }
  const TaskSpec *find(const std::string &name) const;
  const std::string &taskJson(const std::string &name) const { return json_.at(name); }
  // The content key of the task's reference.c and baseline.cu as read at start.
  const std::string &sourcesKey(const std::string &name) const { return sources_.at(name); }
  const std::filesystem::path &tasksDir() const { return tasksDir_; }

  // Thread-safe; compiles on the first call for a task only. Different
  // tasks prepare in parallel; callers of one task share its preparation.
  PreparedTask prepare(const std::string &name);

private:
  PreparedTask compileTask(const std::string &name) const;
  // The task author's C source as a shared library in the cache (cc, trusted), or the compiler's complaint.
  std::string compileTrusted(const std::string &name, const std::filesystem::path &source,
                             const std::vector<std::string> &linkFlags, std::filesystem::path &library) const;

  std::filesystem::path tasksDir_, cacheDir_;
  CandidateCompiler &compiler_;
  std::vector<TaskSpec> tasks_;
  std::map<std::string, std::string> json_, sources_;
  std::map<std::string, PreparedTask> prepared_;
  std::map<std::string, std::shared_future<PreparedTask>> preparing_;
  std::mutex mutex_;
};

} // namespace cudaperf
