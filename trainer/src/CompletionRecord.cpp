#include "cudaperf/trainer/CompletionRecord.h"

#include "cudaperf/contracts/Utf8Text.h"

namespace cudaperf::trainer {

namespace json = boost::json;

namespace {

json::value optionalNumber(const std::optional<double> &value) {
  return value ? json::value(*value) : json::value(nullptr);
}

} // namespace

json::object completionRecord(const RewardRequest &request, const RewardAnswer &answer, bool withSource) {
  std::string status = answer.status;
  if (!answer.ok)
    status = answer.httpStatus >= 400 && answer.httpStatus < 500 ? "request_refused" : "no_answer";
  json::object record{{"task", request.task},
                      {"turn", request.turn},
                      {"status", status},
                      {"reward", optionalNumber(answer.reward)},
                      {"r_ver", optionalNumber(answer.rVer)},
                      {"r_str", optionalNumber(answer.rStr)},
                      {"speedup", optionalNumber(answer.speedup)}};
  if (!answer.ok)
    record["error"] = contracts::validUtf8(answer.error);
  // Where a slow reward step's time went: the client's wait (retries included) and the daemon's phases.
  record["seconds"] = answer.seconds;
  record["attempts"] = answer.attempts;
  if (const auto *profile = answer.body.if_contains("profile"))
    record["profile"] = *profile;
  // The measured times behind a speedup: what to read first when a speedup looks too good.
  if (const auto *timing = answer.body.if_contains("timing"))
    record["timing"] = *timing;
  if (withSource || status == "ok")
    record["source"] = contracts::validUtf8(request.source); // what the reward client sent: the log stays JSON
  if (answer.ok && !answer.feedback.empty())
    record["feedback"] =
        contracts::validUtf8(answer.feedback); // what a refinement turn showed (sft-data --refinements)
  return record;
}

} // namespace cudaperf::trainer
