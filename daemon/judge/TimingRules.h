// The judge's rules for turning what it measured into a call's time and a
// verdict on the worker's CPU use. Pure functions (unit-tested on any
// machine); the judge applies them to every timed call.
#pragma once

#include <vector>

namespace cudaperf::judge {

// Measured on the fresh worker before any candidate code exists in it: empty
// calls (the worker synchronises the device and answers), each timed by the
// judge's clock and by the worker's CUDA events, and the judge's own probe
// kernel after each (how long the GPU takes to run a trivial kernel of the
// judge's when nothing else is running).
struct RoundTripCalibration {
  double wallMedianMs = 0; // the judge's round trip of an empty call
  double gapMedianMs = 0;  // round trip minus the worker's event time
  double gapLowMs = 0;     // the band an honest worker's event time falls in: wall - gapHigh .. wall - gapLow
  double gapHighMs = 0;
  double probeIdleMs = 0;  // the idle probe's latency: median
  double probeLimitMs = 0; // above this a probe found the GPU busy with someone else's work
  // The worker's CPU time per empty call (its driver's waits and wake-ups, the
  // judge's stops and continues of its threads), measured by the judge before
  // any candidate code exists: the honest overhead that judgeCpuUse allows
  // per call on this machine (capped: kMaxCpuOverheadPerCallMs).
  double cpuPerCallMs = 0;
};

RoundTripCalibration calibrate(const std::vector<double> &wallMs, const std::vector<double> &eventMs,
                               const std::vector<double> &probeMs);

// After "returned" the judge runs its probe kernel until one finds the GPU
// idle (the worker's kernels may hold it a time slice at a time). What the
// probes waited for is their latency beyond the idle probe's, summed: the
// last, idle probe adds nothing, and neither does a second probe that an
// honest call's noisy first one set off (summing whole latencies charged
// that probe's own run as the worker's unfinished work).
double postCallWaitMs(const std::vector<double> &probeLatenciesMs, const RoundTripCalibration &c);

// The post-call waits of the task's trusted baseline: what a real call of
// this shape leaves for the probe to wait on when nothing runs behind it (the
// GPU switching back to the judge's context, say). Empty calls, which the
// calibration measures, leave less; waiting up to this reference's limit is
// not charged to a candidate as unfinished. Waits are relative to each
// worker's own idle probe, so that workers whose context switches differ
// compare fairly.
struct ProbeReference {
  bool known = false;
  double limitMs = 0; // median + max(slack, 3 median deviations) + slack
};
ProbeReference postCallProbeReference(const std::vector<double> &postCallWaitMs);
// The limit above which a post-call wait counts as unfinished work: the
// calibration's own noise band, or the baseline's reference plus the 20 us
// a worker's event times are allowed off the baseline's where that is
// higher. Honest workers' post-call waits differ from the baseline worker's
// by up to ~0.02 ms for a whole run on the H200 (the context switch back to
// the judge's), which charged up to 5 % to a run's median; work hidden past
// "returned" gains at most that tolerance, as a lying timer does.
double unfinishedLimitMs(const RoundTripCalibration &c, const ProbeReference &reference);

// The part of a post-call wait that unfinishedLimitMs forgives only through
// its 20 us tolerance (beyond the calibration's band and the baseline's
// limit). It draws on the same budget as a positive gap shift: a worker may
// be off the baseline's in its event times or in its post-call waits by the
// tolerance, not in both (a tail of work past "returned" plus a shaved
// event time would otherwise stack the two).
double toleratedWaitMs(double postCallWaitMs, const RoundTripCalibration &c, const ProbeReference &reference);

struct CallTime {
  double ms = 0;                  // what the call is charged
  double judgeMs = 0;             // the judge's round trip minus the calibrated gap
  bool workerTimeOutside = false; // the worker's event time fell outside the band: the judge's clock decided
  double unfinishedMs = 0;        // GPU work still running for the worker after it said "returned"
};

// The judge's clock is authoritative: the worker's event time may refine the
// round trip only within the calibrated band, and whatever the GPU still had
// to finish for the worker after it answered (the judge's probe kernel waited
// for it) beyond `unfinishedLimitMs` is added.
CallTime callTime(double judgeWallMs, double workerEventMs, double postCallWaitMs, double unfinishedLimitMs,
                  const RoundTripCalibration &c);

// The probe before a call waited for work that is not the judge's: something
// (the worker's leftovers, a kernel in a second context) kept the GPU busy
// between calls.
bool gpuBusyBeforeCall(double probeMs, const RoundTripCalibration &c);

// The gaps (the judge's round trip minus the worker's event time) of a
// trusted library's timed calls, the task's GPU baseline in a worker of its
// own: what an honest worker's gaps look like for calls of this task, two
// GPU context switches and the host's wake-ups included.
struct GapReference {
  bool known = false;
  double medianMs = 0;
  double spreadMs = 0; // median absolute deviation
};
GapReference gapReference(const std::vector<double> &wallMs, const std::vector<double> &eventMs);

// The task's baseline is timed in two fresh workers: now and then one
// worker's gaps (or post-call waits) are offset for its whole run, and a
// slow baseline worker would let every candidate's event times be that much
// shorter than honest. Of two trusted references, the tighter one: the
// smaller median gap (with its own spread), the lower post-call limit; an
// unknown side gives way to the known one.
GapReference tighterGaps(const GapReference &a, const GapReference &b);
ProbeReference tighterProbeReference(const ProbeReference &a, const ProbeReference &b);

struct TimedSamples {
  std::vector<double> ms;
  bool workerTimesTrusted = false;
  double gapShiftMs = 0; // the candidate's median gap minus the reference's
};

// The timed calls' samples. The worker's event times (each at most its round
// trip) when their median gap, plus the median of the post-call waits
// forgiven by the tolerance (`toleratedMs`, toleratedWaitMs of each call),
// is the reference's within three spreads and 20 us, and every event time is
// a finite number; otherwise the worker's clock was tampered with (or
// disagrees), and every sample is the judge's round trip minus the
// reference's gap, with the tolerated waits charged too. A liar can shave at
// most that one tolerance off the median. Each sample carries the work the
// judge's probe found unfinished after "returned".
TimedSamples timedSamples(const std::vector<double> &wallMs, const std::vector<double> &eventMs,
                          const std::vector<double> &unfinishedMs, const GapReference &reference,
                          const std::vector<double> &toleratedMs = {});

// The share of a timed call the candidate's kernels kept the GPU busy (the
// traced call's busy time against the median call), at most 1. When the
// worker's event times were rejected, the median is the judge's round trip
// less the baseline's gap, which still carries the excess gap it could not
// explain (gap_shift: an honest worker's slow wake-ups as much as a liar's
// shave); that excess is no call time of the candidate's kernels, so the
// share is taken of the median without it. A liar gains nothing by it: its
// samples are the judge's clock either way. Without a median: 1.
double gpuShareOfCall(double tracedBusyMs, double medianMs, double gapShiftMs, bool workerTimesTrusted);

struct CpuUse {
  bool hostComputation = false;
  double budgetMs = 0;
};

// The worker's process tree may use CPU time for launching kernels and for
// its driver, not for computing: over the timed phase (gaps between calls
// included) at most half of the calls' time plus a small allowance per call
// in device memory mode, on top of the overhead an empty call of this worker
// was measured to cost (`overheadPerCallMs`, at most 1 ms). In host memory
// mode the candidate copies with the CPU itself, so one busy thread is
// allowed and more are not. `allowanceShare`: the part of the phase's fixed
// allowance these calls get (a run stopped early: its calls over `runs`).
CpuUse judgeCpuUse(double cpuMs, double callsMs, int calls, bool hostMemory, double overheadPerCallMs = 0,
                   double allowanceShare = 1.0);

// The correctness calls' CPU time, so far: at most one busy thread (the
// first call's module load, a host-memory candidate's own copies) and the
// driver's small change. A candidate that spins several cores there, where
// the timed phase's budget does not look, slows every other judge on the
// host (the second review's finding).
CpuUse correctnessCpuUse(double cpuMs, double callsMs, int calls, double overheadPerCallMs = 0);

// The library's loading (its constructors, the dynamic linker's work, CUDA's
// registration of its modules): one busy thread and 100 ms (a library linked
// against cuBLAS relocates for tens of ms). Constructors that spin several
// threads, whose CPU no call's budget sees, slow everything else on the
// judge's cores (the review of the judges' own CPUs).
CpuUse loadCpuUse(double cpuMs, double loadMs);
// A load past this is the candidate's timeout (an honest one takes ms).
constexpr double kLoadLimitSeconds = 10;

double median(std::vector<double> values);
double coefficientOfVariation(const std::vector<double> &values);

} // namespace cudaperf::judge
