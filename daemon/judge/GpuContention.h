// Whose a busy GPU is. The judge rejects a candidate whose GPU was found
// busy before its timed calls or after their replies (work it left running
// to finish off the clock), or whose kernels filled too little of its calls
// (work done elsewhere). On a GPU another process uses too (a trainer's
// policy generating beside the daemon, another tenant) an honest candidate
// meets the same signs: on 2026-12-06 three GRPO runs and an evaluation on
// one H100 had 51 correct answers rejected that way and scored as failed
// compiles. So the rejection stands only when the GPU is quiet without the
// candidate: the task's baseline, timed by the same rules in a fresh worker
// once the candidate's worker is gone (with its process tree, and so with
// every kernel it launched), is the control. Pure functions over answers.
#pragma once

#include <boost/json/object.hpp>

namespace cudaperf::judge {

// A `rejected` answer whose rule reads the GPU's time (`rejected_by`
// gpu_busy or gpu_share): what another process on the GPU can set off.
bool rejectedByGpuRule(const boost::json::object &answer);

// Whether a timed run meets those rules itself: its timing's
// gpu_busy_before_calls or gpu_busy_after_replies at least
// gpu_busy_calls_to_reject, or its gpu_share under gpu_share_minimum.
// False for a run without those fields.
bool gpuRulesMet(const boost::json::object &answer);

// The candidate's verdict after the control. The control met the same
// rules, or could not run at all: the machine's verdict
// (`harness_error`, `gpu_contended`), the candidate's rejection kept under
// `rejection_set_aside`; never a candidate's reward, and the daemon stores
// none of it (asked again, it judges afresh). The control ran quiet: the
// rejection stands. Either way the control's counts go with the answer
// (`gpu_control`).
boost::json::object verdictAfterControl(boost::json::object answer, const boost::json::object &control);

} // namespace cudaperf::judge
