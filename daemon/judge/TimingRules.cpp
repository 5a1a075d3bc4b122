#include "TimingRules.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cudaperf::judge {

namespace {

constexpr double kSlackMs = 0.005;       // clock granularity and scheduling noise
constexpr double kGapToleranceMs = 0.02; // a candidate's median gap (or post-call wait) over the baseline's
constexpr double kBusyProbeMs = 0.5;     // a probe this much slower than idle waited for other work
constexpr double kCpuShareDevice = 0.5;  // of the calls' time
// Launches, the driver's wake-up; with the doorbell's two stops and continues
// of every thread per call, honest calls on the H200 used 0.3-0.9 ms more CPU
// than the empty calls the overhead below is measured on.
constexpr double kCpuPerCallMs = 0.5;
constexpr double kCpuAllowanceMs = 2.0; // once per phase
// A measured empty call's CPU beyond this is no honest overhead to allow
// (on the H200 0.3-0.6 ms with the doorbell's stop and continue per call).
constexpr double kMaxCpuOverheadPerCallMs = 1.0;
constexpr double kCpuShareHost = 1.0;
constexpr double kCpuPerCallHostMs = 0.5;
constexpr double kCpuAllowanceHostMs = 5.0;
constexpr double kCpuShareCorrectness = 1.5;     // of the correctness calls' time: one busy thread and change
constexpr double kCpuPerCallCorrectnessMs = 1.0; // a size's first call (2.5-4 ms on the H200 for a small one)
constexpr double kCpuAllowanceCorrectnessMs = 10.0;
constexpr double kCpuShareLoad = 1.5;         // of the load's time: one busy thread and change
constexpr double kCpuAllowanceLoadMs = 100.0; // relocations, module registration

double medianAbsoluteDeviation(const std::vector<double> &values, double center) {
  std::vector<double> deviations;
  for (double v : values)
    deviations.push_back(std::fabs(v - center));
  return median(deviations);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5)];
}

} // namespace

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double coefficientOfVariation(const std::vector<double> &values) {
  if (values.size() < 2)
    return 0;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values)
    squares += (v - mean) * (v - mean);
  return mean > 0 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean : 0;
}

RoundTripCalibration calibrate(const std::vector<double> &wallMs, const std::vector<double> &eventMs,
                               const std::vector<double> &probeMs) {
  RoundTripCalibration c;
  std::vector<double> gaps;
  for (std::size_t i = 0; i < wallMs.size() && i < eventMs.size(); ++i)
    gaps.push_back(std::max(0.0, wallMs[i] - eventMs[i]));
  c.wallMedianMs = median(wallMs);
  c.gapMedianMs = median(gaps);
  // The band of an honest worker's gap: the host's wake-ups vary from call to
  // call, so up to the calibration's 90th percentile plus three median
  // deviations (one freak round trip cannot widen it for a liar); what a
  // liar can shave off is at most that spread.
  const double spread = std::max(kSlackMs, 3 * medianAbsoluteDeviation(gaps, c.gapMedianMs));
  c.gapLowMs = std::max(0.0, c.gapMedianMs - spread);
  c.gapHighMs = std::max(c.gapMedianMs + spread, quantile(gaps, 0.9) + spread);
  c.probeIdleMs = median(probeMs);
  c.probeLimitMs = c.probeIdleMs + std::max(kSlackMs, 3 * medianAbsoluteDeviation(probeMs, c.probeIdleMs)) + kSlackMs;
  return c;
}

CallTime callTime(double judgeWallMs, double workerEventMs, double postCallWaitMs, double unfinishedLimitMs,
                  const RoundTripCalibration &c) {
  CallTime t;
  const double low = std::max(0.0, judgeWallMs - c.gapHighMs - kSlackMs);
  const double high = std::max(low, judgeWallMs - c.gapLowMs + kSlackMs);
  t.judgeMs = std::max(0.0, judgeWallMs - c.gapMedianMs);
  double sample = workerEventMs;
  if (!(workerEventMs >= low && workerEventMs <= high)) { // NaN included
    t.workerTimeOutside = true;
    // Slower than the round trip allows: the band's top; faster (a patched
    // event timer), or not a number: the judge's own estimate.
    sample = workerEventMs > high ? high : std::max(low, t.judgeMs);
  }
  t.unfinishedMs = std::max(0.0, postCallWaitMs - unfinishedLimitMs);
  t.ms = sample + t.unfinishedMs;
  return t;
}

double postCallWaitMs(const std::vector<double> &probeLatenciesMs, const RoundTripCalibration &c) {
  double waited = 0;
  for (double latency : probeLatenciesMs)
    waited += std::max(0.0, latency - c.probeIdleMs);
  return waited;
}

ProbeReference postCallProbeReference(const std::vector<double> &postCallWaitMs) {
  ProbeReference reference;
  if (postCallWaitMs.size() < 5)
    return reference;
  const double middle = median(postCallWaitMs);
  reference.known = true;
  reference.limitMs = middle + std::max(kSlackMs, 3 * medianAbsoluteDeviation(postCallWaitMs, middle)) + kSlackMs;
  return reference;
}

namespace {

// What a post-call wait may be before any of the tolerance is drawn on:
// the calibration's own band, or the baseline's limit where it is higher.
double untoleratedWaitLimitMs(const RoundTripCalibration &c, const ProbeReference &reference, double tolerance) {
  const double own = c.probeLimitMs - c.probeIdleMs;
  return reference.known ? std::max(own, reference.limitMs + tolerance) : own;
}

} // namespace

double unfinishedLimitMs(const RoundTripCalibration &c, const ProbeReference &reference) {
  return untoleratedWaitLimitMs(c, reference, kGapToleranceMs);
}

GapReference gapReference(const std::vector<double> &wallMs, const std::vector<double> &eventMs) {
  GapReference reference;
  std::vector<double> gaps;
  for (std::size_t i = 0; i < wallMs.size() && i < eventMs.size(); ++i)
    if (std::isfinite(eventMs[i]))
      gaps.push_back(std::max(0.0, wallMs[i] - eventMs[i]));
  if (gaps.size() < 5)
    return reference;
  reference.known = true;
  reference.medianMs = median(gaps);
  reference.spreadMs = medianAbsoluteDeviation(gaps, reference.medianMs);
  return reference;
}

GapReference tighterGaps(const GapReference &a, const GapReference &b) {
  if (!a.known || !b.known)
    return a.known ? a : b;
  return b.medianMs < a.medianMs ? b : a;
}

ProbeReference tighterProbeReference(const ProbeReference &a, const ProbeReference &b) {
  if (!a.known || !b.known)
    return a.known ? a : b;
  return b.limitMs < a.limitMs ? b : a;
}

TimedSamples timedSamples(const std::vector<double> &wallMs, const std::vector<double> &eventMs,
                          const std::vector<double> &unfinishedMs, const GapReference &reference,
                          const std::vector<double> &toleratedMs) {
  TimedSamples out;
  std::vector<double> gaps, tolerated;
  bool allFinite = eventMs.size() >= wallMs.size();
  for (std::size_t i = 0; i < wallMs.size(); ++i) {
    const bool finite = i < eventMs.size() && std::isfinite(eventMs[i]);
    allFinite = allFinite && finite;
    gaps.push_back(finite ? wallMs[i] - eventMs[i] : wallMs[i]);
    tolerated.push_back(i < toleratedMs.size() ? toleratedMs[i] : 0.0);
  }
  out.gapShiftMs = median(gaps) - reference.medianMs;
  const double used = std::max(0.0, out.gapShiftMs) + median(tolerated);
  out.workerTimesTrusted = allFinite && used <= std::max(3 * reference.spreadMs, 0.0) + kGapToleranceMs;
  for (std::size_t i = 0; i < wallMs.size(); ++i) {
    const double unfinished = i < unfinishedMs.size() ? unfinishedMs[i] : 0.0;
    const double honest = out.workerTimesTrusted ? std::clamp(eventMs[i], 0.0, wallMs[i])
                                                 : std::max(0.0, wallMs[i] - reference.medianMs) + tolerated[i];
    out.ms.push_back(honest + unfinished);
  }
  return out;
}

double toleratedWaitMs(double postCallWaitMs, const RoundTripCalibration &c, const ProbeReference &reference) {
  const double untolerated = untoleratedWaitLimitMs(c, reference, 0.0);
  const double limit = unfinishedLimitMs(c, reference);
  return std::clamp(postCallWaitMs - untolerated, 0.0, std::max(0.0, limit - untolerated));
}

CpuUse loadCpuUse(double cpuMs, double loadMs) {
  CpuUse use;
  use.budgetMs = kCpuShareLoad * std::max(0.0, loadMs) + kCpuAllowanceLoadMs;
  use.hostComputation = cpuMs > use.budgetMs;
  return use;
}

CpuUse correctnessCpuUse(double cpuMs, double callsMs, int calls, double overheadPerCallMs) {
  CpuUse use;
  use.budgetMs = kCpuShareCorrectness * callsMs + kCpuPerCallCorrectnessMs * calls + kCpuAllowanceCorrectnessMs +
                 std::clamp(overheadPerCallMs, 0.0, kMaxCpuOverheadPerCallMs) * calls;
  use.hostComputation = cpuMs > use.budgetMs;
  return use;
}

double gpuShareOfCall(double tracedBusyMs, double medianMs, double gapShiftMs, bool workerTimesTrusted) {
  const double callMs = workerTimesTrusted ? medianMs : medianMs - std::max(0.0, gapShiftMs);
  return callMs > 0 ? std::clamp(tracedBusyMs / callMs, 0.0, 1.0) : 1.0;
}

bool gpuBusyBeforeCall(double probeMs, const RoundTripCalibration &c) {
  return probeMs > c.probeLimitMs + kBusyProbeMs;
}

CpuUse judgeCpuUse(double cpuMs, double callsMs, int calls, bool hostMemory, double overheadPerCallMs,
                   double allowanceShare) {
  CpuUse use;
  const double overhead = std::clamp(overheadPerCallMs, 0.0, kMaxCpuOverheadPerCallMs) * calls;
  const double allowance = (hostMemory ? kCpuAllowanceHostMs : kCpuAllowanceMs) * std::clamp(allowanceShare, 0.0, 1.0);
  use.budgetMs = hostMemory ? kCpuShareHost * callsMs + kCpuPerCallHostMs * calls + allowance + overhead
                            : kCpuShareDevice * callsMs + kCpuPerCallMs * calls + allowance + overhead;
  use.hostComputation = cpuMs > use.budgetMs;
  return use;
}

} // namespace cudaperf::judge
