// The stage between the judge's answer and the daemon's: what a verdict
// gives the formulas of contracts/VerifiableReward.h, and the answer's
// reward object with every component. Typed and free of the pipeline, so
// that it is tested without a daemon (test/unit/RewardAssemblyTest.cpp).
#pragma once

#include "cudaperf/contracts/VerifiableReward.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace cudaperf {

// The outcome of a compiled candidate the judge ran: tests passed of total
// from `correctness`, the speedup over the configured baseline and the CV
// from `timing` (where timed; the speedup used is recorded there as
// `speedup` and `baseline`). A verdict other than ok or wrong_answer earns
// no correctness credit.
VerifiableOutcome judgedOutcome(boost::json::object &result, const RewardConfig &config);

// The answer's `reward`: r_ver's components (null for no_gpu, harness_error
// and bad_task: nothing was verified, and nothing of it is the candidate's
// doing; a rejected candidate is scored like a failed compile), r_str,
// lambda_str, and total = R_ver + lambda_str * R_str.
boost::json::object assembleReward(const std::string &status, VerifiableOutcome outcome, std::optional<double> rStr,
                                   const RewardConfig &config);

} // namespace cudaperf
