#include "cudaperf/daemon/TaskCatalog.h"

#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/daemon/InstalledPaths.h"
#include "cudaperf/daemon/Sandbox.h"

#include <unistd.h>

namespace cudaperf {

TaskCatalog::TaskCatalog(const std::filesystem::path &tasksDir, const std::filesystem::path &cacheDir,
                         CandidateCompiler &compiler)
    : tasksDir_(tasksDir), cacheDir_(cacheDir / "references"), compiler_(compiler), tasks_(loadSuite(tasksDir)) {
  std::filesystem::create_directories(cacheDir_);
  std::filesystem::permissions(cacheDir_, std::filesystem::perms::owner_all); // the sandbox user must not read them
  for (const auto &task : tasks_) {
    json_[task.name] = fileContents(task.directory / "task.json");
    sources_[task.name] = contentKey({fileContents(task.reference), task.baseline ? fileContents(*task.baseline) : "",
                                      task.eagerBaseline ? fileContents(*task.eagerBaseline) : ""});
  }
}

const TaskSpec *TaskCatalog::find(const std::string &name) const {
  for (const auto &task : tasks_)
    if (task.name == name)
      return &task;
  return nullptr;
}

PreparedTask TaskCatalog::prepare(const std::string &name) {
  // One preparation per task at a time, tasks in parallel: a task's first
  // requests wait for its own compiles only, never behind another task's.
  std::shared_future<PreparedTask> pending;
  std::promise<PreparedTask> mine;
  {
    std::lock_guard lock(mutex_);
    if (auto known = prepared_.find(name); known != prepared_.end())
      return known->second;
    if (auto running = preparing_.find(name); running != preparing_.end())
      pending = running->second;
    else
      preparing_[name] = mine.get_future().share();
  }
  if (pending.valid())
    return pending.get();
  PreparedTask prepared;
  try {
    prepared = compileTask(name);
  } catch (const std::exception &error) { // an unreadable source: this attempt's error, not a stuck task
    prepared = PreparedTask{};
    prepared.error = "cannot prepare task '" + name + "': " + error.what();
  }
  {
    std::lock_guard lock(mutex_);
    // A failure is not kept: the next request tries again (a sandbox hiccup
    // must not disable a task for the daemon's lifetime).
    if (prepared.error.empty())
      prepared_[name] = prepared;
    preparing_.erase(name);
  }
  mine.set_value(prepared);
  return prepared;
}

PreparedTask TaskCatalog::compileTask(const std::string &name) const {
  PreparedTask prepared;
  prepared.spec = find(name);
  if (!prepared.spec) {
    prepared.error = "unknown task '" + name + "'";
    return prepared;
  }
  prepared.taskJson = json_.at(name);
  // The reference is the task author's code, compiled outside the candidate's reach.
  if (std::string problem = compileTrusted(name, prepared.spec->reference, {"-lm"}, prepared.reference);
      !problem.empty()) {
    prepared.error = "cannot compile the reference of '" + name + "': " + problem;
    return prepared;
  }
  if (prepared.spec->baseline) {
    const auto compiled = compiler_.compile(fileContents(*prepared.spec->baseline), prepared.spec->allowedLibraries);
    if (compiled.ok)
      prepared.baseline = compiled.library;
    else
      prepared.error = "cannot compile the baseline of '" + name + "': " + compiled.log;
  } else if (prepared.spec->eagerBaseline) {
    // Found beside this program (the build tree, or libexec/cudaperf): a
    // daemon built without LibTorch serves the task without a GPU baseline.
    const std::filesystem::path runtime = companionProgram("libcudaperf-eager.so");
    if (std::filesystem::exists(runtime)) {
      const std::string folder = runtime.parent_path().string();
      std::filesystem::path library;
      if (std::string problem = compileTrusted(name + "-eager", *prepared.spec->eagerBaseline,
                                               {"-L" + folder, "-lcudaperf-eager", "-Wl,-rpath," + folder}, library);
          !problem.empty()) {
        prepared.error = "cannot compile the eager baseline of '" + name + "': " + problem;
        return prepared;
      }
      prepared.baseline = library;
      prepared.eagerBaseline = true;
    }
  }
  return prepared;
}

std::string TaskCatalog::compileTrusted(const std::string &name, const std::filesystem::path &source,
                                        const std::vector<std::string> &linkFlags,
                                        std::filesystem::path &library) const {
  const std::string text = fileContents(source);
  std::string flags;
  for (const std::string &flag : linkFlags)
    flags += ' ' + flag;
  library = cacheDir_ / (name + "-" + contentKey({"cc -O2 -shared -fPIC" + flags, text}) + ".so");
  if (std::filesystem::exists(library))
    return "";
  // Written under a private name and renamed: a concurrent daemon sharing
  // the cache never loads a half-written library.
  const auto partial = library.string() + ".partial-" + std::to_string(::getpid());
  sandbox::Request request;
  request.argv = {"/usr/bin/cc", "-O2", "-shared", "-fPIC", "-o", partial, std::filesystem::absolute(source).string()};
  request.argv.insert(request.argv.end(), linkFlags.begin(), linkFlags.end());
  sandbox::Limits limits;
  limits.dropPrivileges = false;   // writes into the daemon's cache
  limits.requireIsolation = false; // the task author's trusted code
  limits.wallSeconds = 60;
  const auto result = sandbox::run(request, limits);
  std::error_code renameError;
  if (result.succeeded())
    std::filesystem::rename(partial, library, renameError);
  if (!result.succeeded() || renameError) {
    std::filesystem::remove(partial, renameError);
    return result.stderrText + result.note + (renameError ? renameError.message() : "");
  }
  return "";
}

} // namespace cudaperf
