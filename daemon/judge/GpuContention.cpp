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

// A count the judge wrote (-1 when absent): read as a double, so a
// non-integral number cannot throw inside the judge.
long long count(const json::object *timing, const char *key) {
  const json::value *value = timing ? timing->if_contains(key) : nullptr;
  return value && value->is_number() ? static_cast<long long>(value->to_number<double>()) : -1;
}

std::string text(const json::object &object, const char *key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

} // namespace

bool rejectedForBusyGpu(const json::object &answer) {
  return text(answer, "status") == "rejected" && text(answer, "rejected_by") == "gpu_busy";
}

bool controlFoundGpuBusy(const json::object &control) {
  const json::object *timing = timingOf(control);
  const long long limit = count(timing, "gpu_busy_calls_to_reject");
  return text(control, "status") == "ok" && limit > 0 &&
         (count(timing, "gpu_busy_before_calls") >= limit || count(timing, "gpu_busy_after_replies") >= limit);
}

namespace {

// The machine's verdict for an answer another process's GPU work spoilt:
// the candidate's rejection, if any, kept under `rejection_set_aside`, and
// what it measured kept with it.
json::object contendedVerdict(json::object answer, std::string error, const char *evidenceKey, json::object evidence) {
  json::object machine{{"status", "harness_error"}, {"error_kind", "gpu_contended"}, {"error", std::move(error)}};
  machine[evidenceKey] = std::move(evidence);
  if (text(answer, "status") == "rejected") {
    json::object setAside;
    for (const char *key : {"status", "rejected_by", "error"})
      if (const json::value *value = answer.if_contains(key))
        setAside[key] = *value;
    machine["rejection_set_aside"] = std::move(setAside);
  }
  for (const char *key : {"sandbox", "phases", "timing", "correctness", "calibration", "kernel_trace", "gpu_control",
                          "second_worker_verdict", "first_worker_rejected"})
    if (json::value *value = answer.if_contains(key))
      machine[key] = std::move(*value);
  return machine;
}

} // namespace

json::object verdictAfterControl(json::object answer, const json::object &control) {
  const json::object *timing = timingOf(control);
  json::object seen{{"status", text(control, "status")},
                    {"gpu_busy_before_calls", count(timing, "gpu_busy_before_calls")},
                    {"gpu_busy_after_replies", count(timing, "gpu_busy_after_replies")},
                    {"timed_calls", count(timing, "timed_calls")}};
  if (!controlFoundGpuBusy(control)) {
    answer["gpu_control"] = std::move(seen); // quiet without it, or no evidence: the rejection stands
    return answer;
  }
  std::string error = "gpu_contended: the task's baseline, timed after the candidate's worker was gone, found the "
                      "GPU busy too (before " +
                      std::to_string(count(timing, "gpu_busy_before_calls")) + " and after the replies of " +
                      std::to_string(count(timing, "gpu_busy_after_replies")) + " of " +
                      std::to_string(count(timing, "timed_calls")) + " timed calls): another process shares this GPU";
  return contendedVerdict(std::move(answer), std::move(error), "gpu_control", std::move(seen));
}

bool timedAnswer(const json::object &answer) {
  const std::string status = text(answer, "status");
  const std::string rule = text(answer, "rejected_by");
  return timingOf(answer) && (status == "ok" || (status == "rejected" && (rule == "gpu_busy" || rule == "gpu_share")));
}

bool tenantsFoundBusy(const json::object &tenants) {
  const json::value *available = tenants.if_contains("available");
  const json::value *others = tenants.if_contains("busy_others");
  return available && available->is_bool() && available->as_bool() && others && others->is_array() &&
         !others->as_array().empty();
}

json::object verdictAfterTenants(json::object answer, json::object tenants) {
  if (!timedAnswer(answer) || !tenantsFoundBusy(tenants)) {
    answer["gpu_tenants"] = std::move(tenants);
    return answer;
  }
  std::string who;
  for (const json::value &other : tenants.at("busy_others").as_array()) {
    const json::object &process = other.as_object();
    const json::value *name = process.if_contains("name");
    who += std::string(who.empty() ? "" : ", ") + "pid " + json::serialize(process.at("pid")) + " (" +
           (name && name->is_string() ? std::string(name->as_string()) : std::string("?")) + ", SM up to " +
           json::serialize(process.at("sm_util_max")) + "%)";
  }
  std::string error = "gpu_contended: while the candidate was timed the driver saw other processes compute on this "
                      "GPU: " +
                      who + "; its time is not its own";
  return contendedVerdict(std::move(answer), std::move(error), "gpu_tenants", std::move(tenants));
}

} // namespace cudaperf::judge
