// One scored completion as a line of a run's completions log (GRPO's
// out_dir/completions.jsonl, eval's --completions-out): what the daemon said
// of it and the source it judged, so that the completions a run rewarded most
// can be read afterwards for answers that fooled the reward (docs/training.md,
// "Reading what the reward paid for").
#pragma once

#include "cudaperf/trainer/RewardClient.h"

#include <boost/json.hpp>

namespace cudaperf::trainer {

// task, turn, status ("request_refused" or "no_answer" without a daemon
// verdict), reward, r_ver, r_str, speedup (null where absent), the daemon's
// whole answer's `timing` where it has one, and `source` when withSource or
// the status is ok (a correct answer's source is always kept).
boost::json::object completionRecord(const RewardRequest &request, const RewardAnswer &answer, bool withSource);

} // namespace cudaperf::trainer
