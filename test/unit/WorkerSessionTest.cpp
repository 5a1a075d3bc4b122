// A spare worker that is still starting is stopped while another worker's
// calls are timed (WorkerSession::pauseIfStarting), and goes on afterwards:
// checked from outside, by the states /proc gives its processes.
#include "WorkerSession.h"
#include "ProcessTree.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

using namespace cudaperf::judge;

namespace {

WorkerOptions hostWorker() {
  WorkerOptions options;
  options.program = CUDAPERF_WORKER;
  options.cuda = false; // host memory: no GPU on the test machine
  options.limits.wallSeconds = 60;
  options.limits.cpuSeconds = 60;
  return options;
}

// The state letter of every thread of `root` and every process below it,
// from the "State:" line of each thread's status file.
std::string threadStates(pid_t root) {
  std::string states;
  for (pid_t pid : processTree(root)) {
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    std::error_code missing;
    for (const auto &thread : std::filesystem::directory_iterator(tasks, missing)) {
      std::ifstream status(thread.path() / "status");
      for (std::string line; std::getline(status, line);)
        if (line.rfind("State:", 0) == 0) {
          const auto letter = line.find_first_not_of(" \t", 6);
          if (letter != std::string::npos)
            states += line[letter];
          break;
        }
    }
  }
  return states;
}

} // namespace

TEST(WorkerSession, AStartingWorkerIsStoppedUntilResumedThenBecomesReady) {
  std::string error;
  auto worker = WorkerSession::start(hostWorker(), error);
  ASSERT_TRUE(worker) << error;
  // Asked at once: the worker has not had the time to start (exec, its libraries, Ready).
  ASSERT_TRUE(worker->pauseIfStarting());
  const std::string paused = threadStates(worker->treeRoot());
  ASSERT_FALSE(paused.empty());
  EXPECT_EQ(paused.find_first_not_of("tT"), std::string::npos) << "states while paused: " << paused;
  // Long enough for a running start to finish: still stopped, no thread ran.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::string later = threadStates(worker->treeRoot());
  EXPECT_EQ(later.find_first_not_of("tT"), std::string::npos) << "states 300 ms later: " << later;
  worker->resumeStart();
  EXPECT_TRUE(worker->awaitReady(steadySeconds() + 20)) << worker->message();
}

TEST(WorkerSession, AReadyWorkerIsNotPausedAndAwaitReadyResumesAPausedOne) {
  std::string error;
  auto ready = WorkerSession::start(hostWorker(), error);
  ASSERT_TRUE(ready) << error;
  ASSERT_TRUE(ready->awaitReady(steadySeconds() + 20)) << ready->message();
  EXPECT_FALSE(ready->pauseIfStarting()); // started: nothing of it runs beside timed calls
  const std::string states = threadStates(ready->treeRoot());
  EXPECT_NE(states.find_first_not_of("tT"), std::string::npos) << states;

  auto starting = WorkerSession::start(hostWorker(), error);
  ASSERT_TRUE(starting) << error;
  ASSERT_TRUE(starting->pauseIfStarting());
  EXPECT_FALSE(starting->pauseIfStarting()); // once is enough: the second is a no-op
  // Taken while paused (the judge's next evaluation): awaitReady continues it first.
  EXPECT_TRUE(starting->awaitReady(steadySeconds() + 20)) << starting->message();
}
