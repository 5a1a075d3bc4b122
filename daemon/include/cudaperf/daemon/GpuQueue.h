// One GPU's queue of evaluations, served by one thread that runs that GPU's
// long-lived judge: the evaluations of one task waiting together go to the
// judge as a batch (each candidate in a worker of its own).
#pragma once

#include "cudaperf/daemon/JudgeRun.h"
#include "cudaperf/daemon/JudgeSession.h"
#include "cudaperf/daemon/Metrics.h"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cudaperf {

class GpuQueue {
public:
  GpuQueue(int gpu, JudgeOptions options, unsigned batch, std::size_t judgeMaxEvaluations, Metrics &metrics);
  ~GpuQueue();
  // `job` holds one candidate.
  std::future<boost::json::object> submit(JudgeJob job);
  std::size_t depth() const;
  // Evaluations submitted and not yet answered (waiting or in the judge).
  std::size_t load() const { return load_.load(); }
  int gpu() const { return gpu_; }

private:
  struct Pending {
    JudgeJob job;
    std::promise<boost::json::object> promise;
    std::chrono::steady_clock::time_point submitted = std::chrono::steady_clock::now();
  };
  void serve();
  int gpu_;
  JudgeOptions options_;
  std::unique_ptr<JudgeSession> session_; // this GPU's judge, kept across batches
  unsigned batch_;
  Metrics &metrics_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  bool stopping_ = false;
  std::atomic<std::size_t> load_{0};
  std::thread thread_;
};

// The queue an evaluation goes to: the least loaded, ties taken in turn
// starting at `turn` (a counter the caller advances), so that idle GPUs
// share the work evenly and a busy one is passed by.
std::size_t leastLoadedQueue(const std::vector<std::size_t> &loads, std::size_t turn);

} // namespace cudaperf
