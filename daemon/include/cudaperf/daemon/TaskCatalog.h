// The bundled tasks as the daemon serves them: specs loaded and validated at
// start, and per task (on first use, once) the reference compiled with cc
// and the GPU baseline compiled through the sandboxed compiler.
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
  std::optional<std::filesystem::path> baseline; // compiled baseline.cu
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

  std::filesystem::path tasksDir_, cacheDir_;
  CandidateCompiler &compiler_;
  std::vector<TaskSpec> tasks_;
  std::map<std::string, std::string> json_, sources_;
  std::map<std::string, PreparedTask> prepared_;
  std::map<std::string, std::shared_future<PreparedTask>> preparing_;
  std::mutex mutex_;
};

} // namespace cudaperf
