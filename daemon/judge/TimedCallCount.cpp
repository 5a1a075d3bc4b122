#include "TimedCallCount.h"

#include "TimingRules.h"

#include <algorithm>
#include <cmath>

namespace cudaperf::judge {

MedianInterval medianInterval(std::vector<double> samples) {
  if (samples.empty())
    return {};
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  const double spread = 0.98 * std::sqrt(n); // 1.96 / 2 standard deviations of Binomial(n, 1/2)
  const auto rank = [&](double r) { return static_cast<std::size_t>(std::clamp(r, 1.0, n)) - 1; };
  return {samples[rank(std::floor(n / 2 - spread))], samples[rank(std::ceil(n / 2 + 1 + spread))]};
}

double medianOverFirstCalls(const std::vector<double> &samples, int calls, double whole) {
  if (calls <= 0 || static_cast<std::size_t>(calls) >= samples.size())
    return whole;
  return median(std::vector<double>(samples.begin(), samples.begin() + calls));
}

bool timingSettled(const std::vector<double> &samples, const TimedCallPolicy &policy) {
  const auto n = static_cast<int>(samples.size());
  if (n >= policy.maxRuns)
    return true;
  if (n < policy.minRuns)
    return false;
  const double middle = median(samples);
  const MedianInterval interval = medianInterval(samples);
  return policy.medianHalfWidth > 0 && middle > 0 &&
         (interval.high - interval.low) / 2 <= policy.medianHalfWidth * middle;
}

} // namespace cudaperf::judge
