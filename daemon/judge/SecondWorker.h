// When the judge evaluates a candidate once more in a second fresh worker,
// and whose answer stands. Some rules can reject (or mis-time) an honest
// worker by bad luck that does not repeat: a whole run's gaps or post-call
// waits offset, calls stretched by the host's scheduling, CPU time a few
// percent over a budget. Every call of both runs is verified, so a candidate
// that behaves in one run only gains nothing; the rules below see to it that
// it cannot pick the verdict it likes either. Pure functions over answers.
#pragma once

#include <boost/json/object.hpp>

namespace cudaperf::judge {

// An `ok` whose worker times were rejected or whose post-call waits' median
// is over the unfinished limit, or a rejection by a noisy rule (`rejected_by`
// gpu_share or cpu_budget) near its limit (`rejected_ratio`: CPU at most 1.3
// times the budget, a share at least a quarter of the minimum).
bool deservesSecondWorker(const boost::json::object &answer);

// Whether the second worker's answer replaces the first: never a machine's
// verdict (harness_error, no_gpu); a rejection only by an ok or a
// wrong_answer (outputs the judge checked, not noise); an ok by any
// verdict but a noisy rule's rejection (the very noise the second worker is
// asked about), and by a second ok as doubtful as itself only when that one
// is not slower (each median charged for what made it doubtful).
bool secondReplacesFirst(const boost::json::object &first, const boost::json::object &second);

} // namespace cudaperf::judge
