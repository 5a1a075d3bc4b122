#include "cudaperf/daemon/GpuQueue.h"

#include <boost/json.hpp>

#include <stdexcept>

namespace cudaperf {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

GpuQueue::GpuQueue(int gpu, JudgeOptions options, unsigned batch, std::size_t judgeMaxEvaluations, Metrics &metrics)
    : gpu_(gpu), options_(std::move(options)), batch_(batch), metrics_(metrics) {
  options_.environment.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(gpu));
  session_ = std::make_unique<JudgeSession>(options_, judgeMaxEvaluations);
  thread_ = std::thread([this] { serve(); });
}

GpuQueue::~GpuQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::size_t leastLoadedQueue(const std::vector<std::size_t> &loads, std::size_t turn) {
  if (loads.empty())
    throw std::invalid_argument("leastLoadedQueue: no queue");
  std::size_t best = turn % loads.size();
  for (std::size_t k = 1; k < loads.size(); ++k) {
    const std::size_t candidate = (turn + k) % loads.size();
    if (loads[candidate] < loads[best])
      best = candidate;
  }
  return best;
}

std::future<json::object> GpuQueue::submit(JudgeJob job) {
  ++load_;
  Pending pending{std::move(job), {}};
  auto future = pending.promise.get_future();
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(pending));
  }
  wake_.notify_one();
  return future;
}

std::size_t GpuQueue::depth() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

void GpuQueue::serve() {
  for (;;) {
    std::vector<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty())
        return; // stopping, nothing left
      // The oldest evaluation and the others of its task waiting with it,
      // one after the other (the judge keeps one task's buffers at a time).
      batch.push_back(std::move(pending_.front()));
      pending_.pop_front();
      for (auto it = pending_.begin(); it != pending_.end() && batch.size() < batch_;) {
        const JudgeJob &first = batch.front().job;
        if (it->job.task == first.task && it->job.effectiveTrials() == first.effectiveTrials() &&
            it->job.baseline == first.baseline && it->job.reference == first.reference && it->job.runs == first.runs &&
            it->job.warmup == first.warmup && it->job.minRuns == first.minRuns &&
            it->job.medianHalfWidth == first.medianHalfWidth) {
          batch.push_back(std::move(*it));
          it = pending_.erase(it);
        } else {
          ++it;
        }
      }
    }
    JudgeJob job = batch.front().job;
    job.candidates.clear();
    for (const auto &pending : batch)
      job.candidates.push_back(pending.job.candidates.front());
    const auto start = Clock::now();
    std::vector<json::object> results;
    const std::size_t failuresBefore = session_->failures();
    try {
      results = session_->run(job);
    } catch (const std::exception &error) {
      for (auto &pending : batch) {
        pending.promise.set_value(json::object{{"status", "harness_error"}, {"error", error.what()}});
        --load_;
      }
      continue;
    }
    // The GPU is this batch's alone while its judge runs: each candidate's
    // share of that is what bounds the evaluations per GPU-hour.
    const double held = std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(batch.size());
    metrics_.observePhase("gpu", held);
    for (std::size_t f = failuresBefore; f < session_->failures(); ++f)
      metrics_.countWorkerRestart(gpu_);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      json::object result = i < results.size() ? std::move(results[i]) : json::object{{"status", "harness_error"}};
      result["gpu_queue"] =
          json::object{{"wait_seconds", std::chrono::duration<double>(start - batch[i].submitted).count()},
                       {"held_seconds", held},
                       {"batch", batch.size()}};
      result["gpu"] = gpu_;
      batch[i].promise.set_value(std::move(result));
      --load_;
    }
  }
}

} // namespace cudaperf
