#include "GpuContention.h"

#include <boost/json.hpp>

#include <string>

namespace cudaperf::judge {

namespace json = boost::json;

namespace {

const json::object *timingOf(const json::object &answer) {
  const json::value *timing = answer.if_contains("timing");
  return timing && timing->is_object() ? &timing->as_object() : nullptr;
}

std::int64_t count(const json::object *timing, const char *key) {
  const json::value *value = timing ? timing->if_contains(key) : nullptr;
  return value && value->is_number() ? value->to_number<std::int64_t>() : -1;
}

double fraction(const json::object *timing, const char *key) {
  const json::value *value = timing ? timing->if_contains(key) : nullptr;
  return value && value->is_number() ? value->to_number<double>() : -1;
}

std::string text(const json::object &object, const char *key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

} // namespace

bool rejectedByGpuRule(const json::object &answer) {
  const std::string rule = text(answer, "rejected_by");
  return text(answer, "status") == "rejected" && (rule == "gpu_busy" || rule == "gpu_share");
}

bool gpuRulesMet(const json::object &answer) {
  const json::object *timing = timingOf(answer);
  const std::int64_t limit = count(timing, "gpu_busy_calls_to_reject");
  const bool busy = limit > 0 && (count(timing, "gpu_busy_before_calls") >= limit ||
                                  count(timing, "gpu_busy_after_replies") >= limit);
  const double share = fraction(timing, "gpu_share"), minimum = fraction(timing, "gpu_share_minimum");
  return busy || (share >= 0 && minimum > 0 && share < minimum);
}

json::object verdictAfterControl(json::object answer, const json::object &control) {
  const json::object *timing = timingOf(control);
  const std::string status = text(control, "status");
  json::object seen{{"status", status},
                    {"gpu_busy_before_calls", count(timing, "gpu_busy_before_calls")},
                    {"gpu_busy_after_replies", count(timing, "gpu_busy_after_replies")},
                    {"timed_calls", count(timing, "timed_calls")},
                    {"gpu_share", fraction(timing, "gpu_share")}};
  if (status == "ok" && !gpuRulesMet(control)) {
    answer["gpu_control"] = std::move(seen);
    return answer; // quiet without the candidate: the busy GPU was its doing
  }
  json::object machine{
      {"status", "harness_error"},
      {"error_kind", "gpu_contended"},
      {"error", status == "ok"
                    ? "gpu_contended: the task's baseline, timed next in a fresh worker, met the same "
                      "rules without the candidate (GPU busy before " +
                          std::to_string(count(timing, "gpu_busy_before_calls")) + " and after the replies of " +
                          std::to_string(count(timing, "gpu_busy_after_replies")) + " of " +
                          std::to_string(count(timing, "timed_calls")) + " timed calls, its kernels' share of a call " +
                          std::to_string(fraction(timing, "gpu_share")) + "): another process shares this GPU"
                    : "gpu_contended: the candidate was rejected by a rule that reads the GPU's "
                      "time, and the control run that tells whose doing that was did not run (" +
                          status + ": " + text(control, "error") + ")"},
      {"gpu_control", std::move(seen)}};
  json::object setAside;
  for (const char *key : {"status", "rejected_by", "error"})
    if (const json::value *value = answer.if_contains(key))
      setAside[key] = *value;
  machine["rejection_set_aside"] = std::move(setAside);
  for (const char *key : {"sandbox", "phases", "timing", "correctness", "calibration", "kernel_trace"})
    if (json::value *value = answer.if_contains(key))
      machine[key] = std::move(*value);
  return machine;
}

} // namespace cudaperf::judge
