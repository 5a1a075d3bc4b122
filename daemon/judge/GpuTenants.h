// Which other processes computed on the judge's GPU while a candidate was
// timed, as the driver reports it (NVML's per-process utilisation samples).
// The control runs (GpuContention.h) ask the GPU again after the candidate
// is gone, and a control that lands in a quiet gap between a neighbour's
// bursts proves nothing: on 2026-12-06 one H100 shared with a bursty
// neighbour still had 5 of 18 correct answers charged that way. The driver
// saw the neighbour's kernels while they ran, in the neighbour's process,
// which the candidate cannot make: its worker may not fork, so everything
// it launches is in the judge's process tree.
//
// A sample counts against the machine only when its process is provably
// another's: a live process in this judge's view of /proc that holds a
// context on the GPU, not the judge, below it or a worker it started, and the driver's process numbers are this judge's
// (the judge's own process is in the driver's list of contexts on this GPU; inside some containers the driver reports
// the host's numbers instead). Under MPS every client's work is the MPS server's, the candidate's too: no attribution.
// Anything unattributable leaves the decision to the control runs.
#pragma once

#include <sys/types.h>

#include <boost/json/object.hpp>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace cudaperf::judge {

// One of NVML's per-process utilisation samples (percent over the driver's
// sampling period; the timestamp in microseconds of the realtime clock).
struct UtilisationSample {
  unsigned pid = 0;
  unsigned long long timestampUs = 0;
  unsigned smUtil = 0, memUtil = 0;
};

// What the judge knows about processes when it reads the samples.
struct ProcessView {
  pid_t judge = 0;
  // The judge, every process below it, and every process of a worker it
  // started (a killed worker's sandbox init leaves the judge's tree before
  // its CUDA context is torn down).
  std::set<pid_t> ours;
  std::set<unsigned> withContexts;        // the driver's list of processes holding a context on the GPU
  std::function<bool(pid_t)> liveProcess; // a process (not a thread) alive in this judge's /proc
  std::function<std::string(pid_t)> name; // printable (printableName)
};

// The samples read against the view: `busy_others` (pid, name, sm and
// memory utilisation maxima, sample count) when attribution holds, and
// why it does not otherwise (`attribution`: "ours", "foreign_pids", "mps").
// Busy means a sample with sm or memory utilisation above zero.
boost::json::object readTenants(const std::vector<UtilisationSample> &samples, const ProcessView &view);

// The driver, loaded at run time (libnvidia-ml.so.1): judges run where the
// library is missing too, and answer there with `available` false.
class GpuTenants {
public:
  // `gpuUuid` as the judge reports it ("GPU-" and 32 hex digits).
  static std::unique_ptr<GpuTenants> open(const std::string &gpuUuid, std::string &problem);
  virtual ~GpuTenants() = default;
  // The samples since `sinceUs` read against this judge's processes now
  // and `workers` (every process of the workers it started): readTenants'
  // object with `available` true, or `available` false and `error`.
  virtual boost::json::object look(unsigned long long sinceUs, const std::set<pid_t> &workers) const = 0;
  // The realtime clock in microseconds, as the samples' timestamps.
  static unsigned long long nowMicros();
};

// NVML's form of a UUID ("GPU-8-4-4-4-12") from the judge's ("GPU-" and 32
// hex digits); "" when it is not one.
std::string nvmlUuidText(const std::string &gpuUuid);

} // namespace cudaperf::judge
