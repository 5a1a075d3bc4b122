#include "cudaperf/daemon/JudgeVerdict.h"

#include "cudaperf/contracts/JsonAccess.h"

namespace cudaperf {

namespace json = boost::json;

namespace {

std::string textAt(const json::object *object, const char *key) {
  const json::value *value = object ? object->if_contains(key) : nullptr;
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

std::optional<CorrectnessStage> correctnessOf(const json::object *correctness) {
  if (!correctness)
    return std::nullopt;
  CorrectnessStage stage;
  stage.passed = static_cast<int>(numberOr(correctness, "passed", 0));
  stage.total = static_cast<int>(numberOr(correctness, "total", 0));
  stage.seconds = numberOr(correctness, "seconds", 0);
  const json::value *failures = correctness->if_contains("failures");
  if (failures && failures->is_array() && !failures->get_array().empty() && failures->get_array().front().is_object()) {
    const json::object &first = failures->get_array().front().get_object();
    CorrectnessStage::Failure failure;
    if (const json::value *sizes = first.if_contains("sizes"))
      failure.sizes = *sizes;
    failure.reason = textAt(&first, "reason");
    if (const json::value *mismatches = first.if_contains("first_mismatches"))
      failure.firstMismatches = *mismatches;
    stage.firstFailure = std::move(failure);
  }
  return stage;
}

std::optional<TimingStage> timingOf(const json::object *timing) {
  if (!timing)
    return std::nullopt;
  TimingStage stage;
  stage.medianMs = numberOr(timing, "median_ms", 0);
  stage.cv = numberOr(timing, "cv", 0);
  stage.seconds = numberOr(timing, "seconds", 0);
  stage.speedupCpu = numberAt(timing, "speedup_cpu");
  stage.speedupGpu = numberAt(timing, "speedup_gpu");
  return stage;
}

} // namespace

JudgeVerdict JudgeVerdict::fromAnswer(const json::object &answer) {
  JudgeVerdict verdict;
  verdict.status = textAt(&answer, "status");
  if (verdict.status.empty())
    verdict.status = "harness_error";
  verdict.error = textAt(&answer, "error");
  verdict.correctness = correctnessOf(objectAt(answer, "correctness"));
  verdict.timing = timingOf(objectAt(answer, "timing"));
  verdict.workerStartSeconds = numberOr(objectAt(answer, "sandbox"), "start_wait_seconds", 0);
  if (const json::object *phases = objectAt(answer, "phases"))
    for (const auto &[name, value] : *phases)
      if (value.is_number())
        verdict.phases[std::string(name)] = value.to_number<double>();
  return verdict;
}

} // namespace cudaperf
