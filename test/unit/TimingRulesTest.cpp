// The judge's timing and CPU rules against hand-computed values: a lying
// worker's event time is replaced by the judge's own estimate, work left
// running after "returned" is charged, a host computation is caught.
#include "TimingRules.h"
#include "cudaperf/daemon/InputDraw.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf::judge;

namespace {

// Ten empty calls: round trips 0.040 ms except one slow 0.400 ms; event times
// 0.010 ms; idle probes 0.008 ms except one 0.020 ms.
RoundTripCalibration tenCalls() {
  std::vector<double> wall(10, 0.040), events(10, 0.010), probes(10, 0.008);
  wall[3] = 0.400;
  probes[5] = 0.020;
  return calibrate(wall, events, probes);
}

} // namespace

TEST(TimingRules, CalibrationIsRobustToOneSlowRoundTrip) {
  const RoundTripCalibration c = tenCalls();
  EXPECT_DOUBLE_EQ(c.wallMedianMs, 0.040);
  EXPECT_DOUBLE_EQ(c.gapMedianMs, 0.030); // 0.040 - 0.010
  // Nine gaps equal the median: the median deviation is 0, the band is the slack.
  EXPECT_NEAR(c.gapLowMs, 0.025, 1e-12);
  EXPECT_NEAR(c.gapHighMs, 0.035, 1e-12);
  EXPECT_DOUBLE_EQ(c.probeIdleMs, 0.008);
  EXPECT_NEAR(c.probeLimitMs, 0.008 + 0.005 + 0.005, 1e-12);
}

TEST(TimingRules, AnHonestEventTimeRefinesTheRoundTrip) {
  const RoundTripCalibration c = tenCalls();
  // A 1 ms kernel: round trip 1.031 ms, the worker's events 1.000 ms.
  const CallTime t = callTime(1.031, 1.000, 0.0, unfinishedLimitMs(c, {}), c);
  EXPECT_FALSE(t.workerTimeOutside);
  EXPECT_DOUBLE_EQ(t.ms, 1.000);
  EXPECT_NEAR(t.judgeMs, 1.001, 1e-12);
  EXPECT_DOUBLE_EQ(t.unfinishedMs, 0);
}

TEST(TimingRules, APatchedEventTimerIsOverruledByTheJudgesClock) {
  const RoundTripCalibration c = tenCalls();
  // Measured 20 ms by the judge, reported 0.02 ms by a patched cudaEventElapsedTime.
  const CallTime t = callTime(20.030, 0.020, 0.0, unfinishedLimitMs(c, {}), c);
  EXPECT_TRUE(t.workerTimeOutside);
  EXPECT_NEAR(t.ms, 20.000, 1e-9); // round trip minus the median gap
  // Not a number either.
  EXPECT_NEAR(callTime(20.030, std::nan(""), 0.0, unfinishedLimitMs(c, {}), c).ms, 20.000, 1e-9);
  // Claiming more than the round trip allows is capped at the band's top.
  const CallTime slow = callTime(1.031, 5.0, 0.0, unfinishedLimitMs(c, {}), c);
  EXPECT_TRUE(slow.workerTimeOutside);
  EXPECT_NEAR(slow.ms, 1.031 - 0.025 + 0.005, 1e-12);
}

TEST(TimingRules, WorkLeftRunningAfterReturnedIsCharged) {
  const RoundTripCalibration c = tenCalls();
  // "Returned" after 0.05 ms, but the judge's probes waited 3 ms for the GPU:
  // a 3.000 ms probe, then an idle one. Waited 3.000 - 0.008 (idle), of which
  // the calibration's noise band (0.018 - 0.008 = 0.010) is forgiven.
  const double waited = postCallWaitMs({3.000, 0.008}, c);
  EXPECT_NEAR(waited, 2.992, 1e-12);
  EXPECT_NEAR(unfinishedLimitMs(c, {}), 0.010, 1e-12);
  const CallTime t = callTime(0.050, 0.020, waited, unfinishedLimitMs(c, {}), c);
  EXPECT_NEAR(t.unfinishedMs, 2.992 - 0.010, 1e-12);
  EXPECT_NEAR(t.ms, 0.020 + 2.982, 1e-12);
}

TEST(TimingRules, AnHonestCallsSecondProbeIsNotUnfinishedWork) {
  const RoundTripCalibration c = tenCalls(); // idle 0.008, limit 0.018
  // The first probe came back just over the limit (noise), so the judge probed
  // again and found the GPU idle: the wait is the first probe's excess alone,
  // not both probes' whole latencies (0.027 ms, which was charged 0.009 ms).
  EXPECT_NEAR(postCallWaitMs({0.019, 0.008}, c), 0.011, 1e-12);
  EXPECT_NEAR(callTime(0.25, 0.20, postCallWaitMs({0.019, 0.008}, c), unfinishedLimitMs(c, {}), c).unfinishedMs, 0.001,
              1e-12);
  // Probes faster than the idle median wait for nothing.
  EXPECT_DOUBLE_EQ(postCallWaitMs({0.006}, c), 0.0);
}

TEST(TimingRules, WhatTheWaitRuleForgivesIsTheIdleLatencyOfEachProbe) {
  const RoundTripCalibration c = tenCalls(); // idle 0.008
  // Work left running after "returned", met by the probe one 1 ms time slice
  // at a time: three slow probes and the idle one. The waiting charged is
  // 3 x (1.000 - 0.008); summing whole latencies charged 3.008. So what a
  // candidate can hide grows by one idle latency per extra probe, never by
  // the work itself: 2.976 - 0.010 of 3 ms are charged.
  const double waited = postCallWaitMs({1.0, 1.0, 1.0, 0.008}, c);
  EXPECT_NEAR(waited, 2.976, 1e-12);
  EXPECT_NEAR(callTime(0.25, 0.20, waited, unfinishedLimitMs(c, {}), c).unfinishedMs, 2.966, 1e-12);
}

TEST(TimingRules, TheProbeBeforeACallSeesForeignWork) {
  const RoundTripCalibration c = tenCalls();
  EXPECT_FALSE(gpuBusyBeforeCall(0.010, c));
  EXPECT_FALSE(gpuBusyBeforeCall(0.400, c));
  EXPECT_TRUE(gpuBusyBeforeCall(2.0, c)); // waited out someone's time slice
}

TEST(TimingRules, TheGpuShareIsOfTheCallNotOfTheGapTheJudgeCouldNotExplain) {
  // Believed times: busy 0.02 ms of a 0.05 ms median call.
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.02, 0.05, 0.30, true), 0.4);
  // Rejected: the median 0.35 ms holds a 0.30 ms gap excess (an honest
  // worker's slow wake-ups on the H200): 0.02 of the remaining 0.05 ms.
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.02, 0.35, 0.30, false), 0.4);
  // A gap below the reference's takes nothing off.
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.02, 0.20, -0.05, false), 0.1);
  // A token kernel in a long call stays a token, believed or not.
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.001, 2.0, 0.0, false), 0.0005);
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.001, 2.0, 0.0, true), 0.0005);
  // Never above 1, and 1 when there is no call time left to share.
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.5, 0.2, 0.0, true), 1.0);
  EXPECT_DOUBLE_EQ(gpuShareOfCall(0.02, 0.25, 0.30, false), 1.0);
}

TEST(TimingRules, CpuBudgetCatchesHostComputation) {
  // Device memory: 30 calls of 1 ms each: budget 0.5 * 30 + 0.5 * 30 + 2 = 32 ms.
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 30, 30, false).budgetMs, 32.0);
  EXPECT_FALSE(judgeCpuUse(31.9, 30, 30, false).hostComputation); // launches, wake-ups, stops
  EXPECT_TRUE(judgeCpuUse(60, 30, 30, false).hostComputation);    // two threads busy all along
  // 30 calls of 2 ms: 30 + 15 + 2 = 47 ms; one thread busy all along is over it.
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 60, 30, false).budgetMs, 47.0);
  EXPECT_TRUE(judgeCpuUse(60, 60, 30, false).hostComputation);
  // Host memory: one busy thread is the candidate copying; four are a solver.
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 30, 30, true).budgetMs, 30 + 15 + 5.0);
  EXPECT_FALSE(judgeCpuUse(31, 30, 30, true).hostComputation);
  EXPECT_TRUE(judgeCpuUse(120, 30, 30, true).hostComputation);
}

// A run whose timed calls stopped at 10 of 30 gets a third of the phase's
// fixed allowance, so that one busy host thread fits no longer calls than before.
TEST(TimingRules, ARunStoppedEarlyGetsItsShareOfTheFixedAllowance) {
  // Device memory, 10 calls of 1 ms: 0.5 * 10 + 0.5 * 10 + 2 / 3 = 10.667 ms (all of it: 12 ms).
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 10, 10, false, 0, 10.0 / 30).budgetMs, 10 + 2.0 / 3);
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 10, 10, false).budgetMs, 12.0);
  EXPECT_TRUE(judgeCpuUse(11, 10, 10, false, 0, 10.0 / 30).hostComputation);
  // Host memory, 10 calls of 1 ms: 10 + 5 + 5 / 3.
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 10, 10, true, 0, 10.0 / 30).budgetMs, 15 + 5.0 / 3);
  // A share is a fraction: never more than the whole allowance, never less than none.
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 30, 30, false, 0, 2.0).budgetMs, 32.0);
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 30, 30, false, 0, -1.0).budgetMs, 30.0);
}

TEST(TimingRules, TheEmptyCallsMeasuredCpuIsAllowedPerCallAndNoMore) {
  // 30 calls of 2 ms, an empty call measured at 0.4 ms of CPU: 30 + 15 + 2 + 0.4 * 30 = 59 ms.
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 60, 30, false, 0.4).budgetMs, 59.0);
  EXPECT_FALSE(judgeCpuUse(0.4 * 30 + 20, 60, 30, false, 0.4).hostComputation); // the overhead and launches
  EXPECT_TRUE(judgeCpuUse(60 + 0.4 * 30, 60, 30, false, 0.4).hostComputation);  // one busy thread on top
  // A measurement past 1 ms per call is no honest overhead: capped (30 + 15 + 2 + 30).
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 60, 30, false, 5.0).budgetMs, 77.0);
  EXPECT_DOUBLE_EQ(judgeCpuUse(0, 60, 30, false, -1.0).budgetMs, 47.0);
  // The correctness budget adds it the same way: 1.5 x 40 + 4 x 1 + 10 + 4 x 0.4 = 75.6 ms.
  EXPECT_NEAR(correctnessCpuUse(0, 40, 4, 0.4).budgetMs, 75.6, 1e-12);
}

TEST(TimingRules, CorrectnessCallsMayKeepOneThreadBusy) {
  // 4 calls of 10 ms: budget 1.5 x 40 + 4 x 1 + 10 = 74 ms.
  EXPECT_NEAR(correctnessCpuUse(0, 40, 4).budgetMs, 74.0, 1e-12);
  EXPECT_FALSE(correctnessCpuUse(40, 40, 4).hostComputation); // one thread busy throughout (a host-memory copy)
  EXPECT_FALSE(correctnessCpuUse(50, 50, 1).hostComputation); // the first call's module load: one thread, 50 ms
  EXPECT_TRUE(correctnessCpuUse(80, 40, 4).hostComputation);  // two threads spinning
  EXPECT_TRUE(correctnessCpuUse(6 * 40, 40, 4).hostComputation);
}

TEST(TimingRules, LoadingMayKeepOneThreadBusy) {
  // A 2 ms load (the H200's median): 1.5 x 2 + 100 = 103 ms.
  EXPECT_NEAR(loadCpuUse(0, 2).budgetMs, 103.0, 1e-12);
  EXPECT_FALSE(loadCpuUse(2, 2).hostComputation);
  EXPECT_FALSE(loadCpuUse(400, 400).hostComputation); // one thread relocating a large library
  EXPECT_FALSE(loadCpuUse(700, 400).hostComputation); // 700 of 1.5 x 400 + 100 = 700: at the budget
  EXPECT_TRUE(loadCpuUse(700.5, 400).hostComputation);
  EXPECT_TRUE(loadCpuUse(4 * 1000, 1000).hostComputation); // four threads spinning for a second
  EXPECT_NEAR(loadCpuUse(0, -5).budgetMs, 100.0, 1e-12);   // a clock that went back costs no budget
}

TEST(TimingRules, MedianAndCoefficientOfVariation) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  // mean 2, sample std 1: CV 0.5.
  EXPECT_DOUBLE_EQ(coefficientOfVariation({1, 2, 3}), 0.5);
}

TEST(TimingRules, TheBaselinesGapsDecideWhetherACandidatesEventTimesAreBelieved) {
  // The baseline: round trips 0.80 ms around 0.25 ms events, gaps 0.55 +- 0.01.
  std::vector<double> wall = {0.80, 0.81, 0.79, 0.80, 0.82, 0.78, 0.80}, events(7, 0.25);
  const GapReference reference = gapReference(wall, events);
  ASSERT_TRUE(reference.known);
  EXPECT_NEAR(reference.medianMs, 0.55, 1e-12);
  EXPECT_NEAR(reference.spreadMs, 0.01, 1e-12);
  // An honest candidate of 0.10 ms: the same gaps; its event times are its samples.
  std::vector<double> honestWall = {0.65, 0.66, 0.64, 0.65, 0.67}, honestEvents(5, 0.10);
  const TimedSamples honest = timedSamples(honestWall, honestEvents, std::vector<double>(5, 0.0), reference);
  EXPECT_TRUE(honest.workerTimesTrusted);
  EXPECT_NEAR(honest.gapShiftMs, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(honest.ms[0], 0.10);
  // A patched timer reporting 0.02 ms for the same calls: the gaps grow by
  // 0.08 ms, past 3 x 0.01 + 0.02; every sample is the round trip minus 0.55.
  const TimedSamples liar =
      timedSamples(honestWall, std::vector<double>(5, 0.02), std::vector<double>(5, 0.0), reference);
  EXPECT_FALSE(liar.workerTimesTrusted);
  EXPECT_NEAR(liar.ms[0], 0.10, 1e-12);
  EXPECT_NEAR(liar.ms[4], 0.12, 1e-12);
  // Unfinished work is added; an event time is never more than its round trip.
  const TimedSamples slow = timedSamples({0.65}, {5.0}, {1.0}, reference);
  EXPECT_DOUBLE_EQ(slow.ms[0], 0.65 + 1.0);
  EXPECT_FALSE(gapReference({1, 2}, {0, 0}).known); // too few calls to tell
}

TEST(TimingRules, TheGapToleranceAndThePostCallToleranceAreOneBudget) {
  // Calibration: idle probe 0.010, own band 0.010; the baseline's post-call
  // limit 0.030 (median 0.020): waits up to 0.030 are forgiven outright,
  // 0.030-0.050 only through the 20 us tolerance, beyond 0.050 charged.
  const RoundTripCalibration c =
      calibrate({0.3, 0.3, 0.3, 0.3, 0.3}, {0.1, 0.1, 0.1, 0.1, 0.1}, {0.010, 0.010, 0.010, 0.010, 0.010});
  const ProbeReference probe = postCallProbeReference({0.018, 0.020, 0.022, 0.020, 0.021, 0.019});
  EXPECT_DOUBLE_EQ(toleratedWaitMs(0.025, c, probe), 0.0);
  EXPECT_NEAR(toleratedWaitMs(0.042, c, probe), 0.012, 1e-12);
  EXPECT_NEAR(toleratedWaitMs(0.090, c, probe), 0.020, 1e-12); // the rest is charged as unfinished
  // The baseline's gaps: 0.55 +- 0 (spread 0): the budget is 0.020.
  const GapReference reference = gapReference(std::vector<double>(5, 0.80), std::vector<double>(5, 0.25));
  const std::vector<double> wall(5, 0.66), none(5, 0.0);
  // A tail of 0.015 ms left past "returned" (waits 0.045: 0.015 tolerated)
  // plus event times shaved by 0.015 (gap shift +0.015): 0.030 of 0.020. Rejected,
  // and then nothing is forgiven: round trip - reference gap + the tolerated wait.
  const std::vector<double> shaved(5, 0.66 - 0.55 - 0.015), tail(5, toleratedWaitMs(0.045, c, probe));
  const TimedSamples both = timedSamples(wall, shaved, none, reference, tail);
  EXPECT_NEAR(both.gapShiftMs, 0.015, 1e-12);
  EXPECT_FALSE(both.workerTimesTrusted);
  EXPECT_NEAR(both.ms[0], 0.66 - 0.55 + 0.015, 1e-12);
  // Either alone fits: the shave (no tail), or the tail (honest event times).
  EXPECT_TRUE(timedSamples(wall, shaved, none, reference).workerTimesTrusted);
  const std::vector<double> honest(5, 0.66 - 0.55);
  EXPECT_TRUE(timedSamples(wall, honest, none, reference, tail).workerTimesTrusted);
  // A worker whose gaps are below the baseline's (negative shift) gets no more than the tolerance for waits.
  const std::vector<double> bigTail(5, 0.020), early(5, 0.66 - 0.50);
  EXPECT_TRUE(timedSamples(wall, early, none, reference, bigTail).workerTimesTrusted);
}

TEST(TimingRules, AnEventTimeThatIsNotANumberIsNotBelieved) {
  const GapReference reference = gapReference(std::vector<double>(5, 0.80), std::vector<double>(5, 0.25));
  std::vector<double> events(5, 0.11);
  events[2] = std::nan("");
  const TimedSamples judged =
      timedSamples(std::vector<double>(5, 0.66), events, std::vector<double>(5, 0.0), reference);
  EXPECT_FALSE(judged.workerTimesTrusted);
  for (double sample : judged.ms)
    EXPECT_NEAR(sample, 0.11, 1e-12); // the judge's round trip minus the reference's gap, every one finite
  // Fewer event times than calls: the same.
  EXPECT_FALSE(timedSamples({0.66, 0.66}, {0.11}, {0.0, 0.0}, reference).workerTimesTrusted);
}

TEST(TimingRules, OfTwoBaselineWorkersTheTighterReferenceIsKept) {
  // Worker A's round trips were 0.22 ms slow all run (seen on the H200):
  // gaps 0.62 +- 0.01 against B's 0.40 +- 0.02.
  const GapReference slow = gapReference({0.87, 0.88, 0.86, 0.87, 0.89}, std::vector<double>(5, 0.25));
  const GapReference normal = gapReference({0.65, 0.67, 0.63, 0.65, 0.69}, std::vector<double>(5, 0.25));
  EXPECT_NEAR(tighterGaps(slow, normal).medianMs, 0.40, 1e-12);
  EXPECT_NEAR(tighterGaps(normal, slow).medianMs, 0.40, 1e-12);
  EXPECT_NEAR(tighterGaps(slow, normal).spreadMs, 0.02, 1e-12); // the kept worker's own spread
  // A liar shaving 0.2 ms off 0.25 ms calls in a normal worker: believed
  // against the slow reference, rejected against the tighter one.
  const std::vector<double> wall = {0.65, 0.66, 0.64, 0.65, 0.67}, lies(5, 0.05), none(5, 0.0);
  EXPECT_TRUE(timedSamples(wall, lies, none, slow).workerTimesTrusted);
  EXPECT_FALSE(timedSamples(wall, lies, none, tighterGaps(slow, normal)).workerTimesTrusted);
  // An unknown side gives way.
  EXPECT_NEAR(tighterGaps(GapReference{}, slow).medianMs, 0.62, 1e-12);
  EXPECT_FALSE(tighterGaps(GapReference{}, GapReference{}).known);
  const ProbeReference loose = postCallProbeReference({0.030, 0.031, 0.029, 0.030, 0.030});
  const ProbeReference tight = postCallProbeReference({0.010, 0.011, 0.009, 0.010, 0.010});
  EXPECT_NEAR(tighterProbeReference(loose, tight).limitMs, tight.limitMs, 1e-12);
  EXPECT_NEAR(tighterProbeReference(ProbeReference{}, loose).limitMs, loose.limitMs, 1e-12);
}

TEST(TimingRules, UnfinishedWorkIsMeasuredAgainstTheBaselinesPostCallWaits) {
  // Calibration after empty calls: probes 0.010 ms, limit 0.010 + 2 x 0.005 = 0.020:
  // waits up to 0.010 ms beyond the idle probe are the calibration's own noise.
  const RoundTripCalibration c =
      calibrate({0.3, 0.3, 0.3, 0.3, 0.3}, {0.1, 0.1, 0.1, 0.1, 0.1}, {0.010, 0.010, 0.010, 0.010, 0.010});
  EXPECT_NEAR(c.probeLimitMs, 0.020, 1e-12);
  EXPECT_NEAR(unfinishedLimitMs(c, {}), 0.010, 1e-12);
  // After the baseline's real calls the probe waits ~0.020 ms beyond idle (the
  // switch back to the judge's context): median 0.020, median deviation 0.001
  // (3 x that is under the 0.005 slack) -> reference 0.020 + 0.005 + 0.005;
  // a candidate's worker may wait 0.020 ms more than that (the tolerance its
  // event times have too): limit 0.050.
  const ProbeReference reference = postCallProbeReference({0.018, 0.020, 0.022, 0.020, 0.021, 0.019});
  ASSERT_TRUE(reference.known);
  EXPECT_NEAR(reference.limitMs, 0.030, 1e-12);
  EXPECT_NEAR(unfinishedLimitMs(c, reference), 0.050, 1e-12);
  // An honest call whose probe took 0.033 ms (waited 0.023): nothing unfinished
  // under the baseline's reference (0.013 ms charged under the empty calls' band).
  const double honest = postCallWaitMs({0.033}, c);
  EXPECT_NEAR(callTime(0.45, 0.25, honest, unfinishedLimitMs(c, {}), c).unfinishedMs, 0.013, 1e-12);
  EXPECT_EQ(callTime(0.45, 0.25, honest, unfinishedLimitMs(c, reference), c).unfinishedMs, 0.0);
  // A worker whose every context switch back is 0.02 ms slower than the
  // baseline worker's (seen on the H200: waits 0.020-0.023 against a limit of
  // 0.011, 5 % on a 0.23 ms median) is not charged: waited 0.045.
  EXPECT_EQ(callTime(0.45, 0.25, postCallWaitMs({0.055}, c), unfinishedLimitMs(c, reference), c).unfinishedMs, 0.0);
  // Work left running after "returned" (a 2 ms kernel, then an idle probe) is
  // charged in full but the limit.
  EXPECT_NEAR(callTime(0.45, 0.25, postCallWaitMs({2.0, 0.010}, c), unfinishedLimitMs(c, reference), c).unfinishedMs,
              2.0 - 0.010 - 0.050, 1e-12);
  // The reference never lowers the calibration's band (waits of 0: 0.010 +
  // 0.020 tolerance), and needs five calls.
  EXPECT_NEAR(unfinishedLimitMs(c, postCallProbeReference({0.0, 0.0, 0.0, 0.0, 0.0})), 0.030, 1e-12);
  EXPECT_NEAR(unfinishedLimitMs(
                  calibrate({0.3, 0.3, 0.3, 0.3, 0.3}, {0.1, 0.1, 0.1, 0.1, 0.1}, {0.010, 0.010, 0.060, 0.110, 0.110}),
                  postCallProbeReference({0.0, 0.0, 0.0, 0.0, 0.0})),
              0.060 + 3 * 0.050 + 0.005 - 0.060, 1e-12);
  EXPECT_FALSE(postCallProbeReference({0.02, 0.02}).known);
  EXPECT_NEAR(unfinishedLimitMs(c, postCallProbeReference({0.02, 0.02})), 0.010, 1e-12);
}

TEST(InputDraw, SipHashMatchesTheReferenceVector) {
  // SipHash-2-4, key 00 01 .. 0f, message 00 01 .. 07 (the paper's vector for 8 bytes).
  EXPECT_EQ(cudaperf::draw::sipHash(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull, 0x0706050403020100ull),
            0x93f5f5799a932462ull);
}
