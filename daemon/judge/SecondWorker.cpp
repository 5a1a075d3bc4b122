#include "SecondWorker.h"

#include <boost/json.hpp>

#include <limits>

namespace cudaperf::judge {

namespace json = boost::json;

namespace {

constexpr double kCpuRatioLimit = 1.3;    // CPU time at most 1.3 times its budget
constexpr double kShareRatioLimit = 0.25; // a GPU share at least a quarter of the minimum (1.7 % of 5 % seen)
constexpr double kNoMedian = std::numeric_limits<double>::infinity();

bool statusIs(const json::object &answer, const char *status) {
  const json::value *value = answer.if_contains("status");
  return value && value->is_string() && value->as_string() == status;
}

double number(const json::object &object, const char *key, double otherwise) {
  const json::value *value = object.if_contains(key);
  return value && value->is_number() ? value->to_number<double>() : otherwise;
}

// The answer's timed median; +inf when it has none (it cannot be the faster).
double medianMs(const json::object &answer) {
  const json::value *timing = answer.if_contains("timing");
  return timing && timing->is_object() ? number(timing->as_object(), "median_ms", kNoMedian) : kNoMedian;
}

} // namespace

bool deservesSecondWorker(const json::object &answer) {
  if (statusIs(answer, "rejected")) {
    const json::value *rule = answer.if_contains("rejected_by");
    const double ratio = number(answer, "rejected_ratio", -1);
    if (!rule || ratio < 0)
      return false;
    return (*rule == "cpu_budget" && ratio <= kCpuRatioLimit) || (*rule == "gpu_share" && ratio >= kShareRatioLimit);
  }
  const json::value *timing = answer.if_contains("timing");
  if (!statusIs(answer, "ok") || !timing || !timing->is_object())
    return false;
  const json::object &t = timing->as_object();
  if (const json::value *workerTimes = t.if_contains("worker_times"); workerTimes && *workerTimes == "rejected")
    return true;
  // Most calls charged unfinished work: on the H200 one honest worker's
  // post-call waits were 0.13 ms for its whole run against a limit of
  // 0.037 ms (median 0.33 ms against the nine others' 0.235).
  const double waits = number(t, "post_call_wait_median_ms", -1), limit = number(t, "unfinished_limit_ms", -1);
  return waits >= 0 && limit >= 0 && waits > limit;
}

bool secondReplacesFirst(const json::object &first, const json::object &second) {
  if (!second.contains("status") || statusIs(second, "harness_error") || statusIs(second, "no_gpu"))
    return false;
  // A noisy rule's rejection gives way to an ok, or to outputs the judge
  // found wrong: that finding is no noise, and a wrong answer's reward is
  // bounded by its failed checks (no better than any wrong candidate's).
  if (statusIs(first, "rejected"))
    return statusIs(second, "ok") || statusIs(second, "wrong_answer");
  if (statusIs(second, "rejected") && second.contains("rejected_by"))
    return false;
  // Two oks, the second as doubtful as the first (its worker times not
  // believed, or unfinished work charged): both medians were charged the
  // same way, so the faster stands. On the H200 an honest saxpy's first
  // worker timed 0.264 ms and its doubtful second 0.347 ms (0.239 after it).
  if (statusIs(first, "ok") && statusIs(second, "ok") && deservesSecondWorker(second))
    return medianMs(second) <= medianMs(first);
  return true;
}

} // namespace cudaperf::judge
