// How many timed calls a candidate's median needs: the judge stops timing
// once the median is pinned down (its distribution-free 95 % interval within
// a set fraction of it) after a minimum, or at the maximum. An honest kernel
// with a CV of 0.2 % settles in the minimum; a noisy one takes every call.
// Pure functions over the calls' times so far.
#pragma once

#include <vector>

namespace cudaperf::judge {

struct MedianInterval {
  double low = 0, high = 0; // order statistics of the samples
};

// The 95 % interval of the median of n samples from their order statistics
// (no assumption on the distribution): ranks l = floor(n/2 - 0.98 sqrt(n))
// and u = ceil(n/2 + 1 + 0.98 sqrt(n)), 1-based, clamped to [1, n] (the
// binomial's normal approximation). {0, 0} for no samples.
MedianInterval medianInterval(std::vector<double> samples);

struct TimedCallPolicy {
  int minRuns = 10;               // never fewer timed calls
  int maxRuns = 30;               // never more
  double medianHalfWidth = 0.005; // stop when (high - low) / 2 <= this fraction of the median; 0: never early
};

// The median of the first `calls` samples (a baseline's, in call order), to
// compare a run that stopped early with as many calls of the baseline's;
// `whole` (the median of all) when there are no more samples than that.
double medianOverFirstCalls(const std::vector<double> &samples, int calls, double whole);

// Whether the timed calls may stop after these samples (every one a counted call's time).
bool timingSettled(const std::vector<double> &samples, const TimedCallPolicy &policy);

} // namespace cudaperf::judge
