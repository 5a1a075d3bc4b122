#include "cudaperf/daemon/Metrics.h"

#include <sstream>

namespace cudaperf {

void Metrics::countRequest(const std::string &endpoint, int status) {
  std::lock_guard lock(mutex_);
  ++requests_[{endpoint, status}];
}

void Metrics::observePhase(const std::string &phase, double seconds) {
  std::lock_guard lock(mutex_);
  Histogram &histogram = phases_[phase];
  for (std::size_t b = 0; b < kBuckets.size(); ++b)
    if (seconds <= kBuckets[b])
      ++histogram.counts[b];
  ++histogram.count;
  histogram.sum += seconds;
}

void Metrics::countWorkerRestart(int gpu) {
  std::lock_guard lock(mutex_);
  ++restarts_[gpu];
}

void Metrics::gauge(const std::string &name, const std::string &help, std::function<double()> read) {
  std::lock_guard lock(mutex_);
  gauges_[name] = {help, std::move(read)};
}

std::string Metrics::render() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "# HELP cudaperf_requests_total HTTP requests by endpoint and status code.\n"
         "# TYPE cudaperf_requests_total counter\n";
  for (const auto &[key, count] : requests_)
    out << "cudaperf_requests_total{endpoint=\"" << key.first << "\",status=\"" << key.second << "\"} " << count
        << "\n";
  out << "# HELP cudaperf_phase_seconds Latency of each evaluation phase.\n"
         "# TYPE cudaperf_phase_seconds histogram\n";
  for (const auto &[phase, histogram] : phases_) {
    for (std::size_t b = 0; b < kBuckets.size(); ++b)
      out << "cudaperf_phase_seconds_bucket{phase=\"" << phase << "\",le=\"" << kBuckets[b] << "\"} "
          << histogram.counts[b] << "\n";
    out << "cudaperf_phase_seconds_bucket{phase=\"" << phase << "\",le=\"+Inf\"} " << histogram.count << "\n"
        << "cudaperf_phase_seconds_sum{phase=\"" << phase << "\"} " << histogram.sum << "\n"
        << "cudaperf_phase_seconds_count{phase=\"" << phase << "\"} " << histogram.count << "\n";
  }
  out << "# HELP cudaperf_cache_hits_total Evaluations answered from the store.\n"
         "# TYPE cudaperf_cache_hits_total counter\n"
      << "cudaperf_cache_hits_total " << cacheHits_.load() << "\n"
      << "# HELP cudaperf_cache_misses_total Evaluations computed.\n"
         "# TYPE cudaperf_cache_misses_total counter\n"
      << "cudaperf_cache_misses_total " << cacheMisses_.load() << "\n"
      << "# HELP cudaperf_gpu_worker_restarts_total Harness processes that ended early (CUDA error, crash, "
         "timeout).\n# TYPE cudaperf_gpu_worker_restarts_total counter\n";
  for (const auto &[gpu, count] : restarts_)
    out << "cudaperf_gpu_worker_restarts_total{gpu=\"" << gpu << "\"} " << count << "\n";
  for (const auto &[name, gauge] : gauges_)
    out << "# HELP " << name << " " << gauge.first << "\n# TYPE " << name << " gauge\n"
        << name << " " << gauge.second() << "\n";
  return out.str();
}

} // namespace cudaperf
