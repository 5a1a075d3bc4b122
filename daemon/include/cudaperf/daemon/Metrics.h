// The daemon's counters, gauges and phase-latency histograms, rendered in
// the Prometheus text exposition format for GET /metrics.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace cudaperf {

class Metrics {
public:
  void countRequest(const std::string &endpoint, int status);
  void observePhase(const std::string &phase, double seconds);
  void countCacheHit() { ++cacheHits_; }
  void countCacheMiss() { ++cacheMisses_; }
  void countWorkerRestart(int gpu);
  // A gauge read when /metrics is rendered (queue depths).
  void gauge(const std::string &name, const std::string &help, std::function<double()> read);
  std::string render() const;

private:
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120};
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> counts{};
    std::uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;
  std::map<std::string, Histogram> phases_;
  std::map<int, std::uint64_t> restarts_;
  std::map<std::string, std::pair<std::string, std::function<double()>>> gauges_;
  std::atomic<std::uint64_t> cacheHits_{0}, cacheMisses_{0};
};

} // namespace cudaperf
