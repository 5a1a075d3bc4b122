// Whose a busy GPU is. The judge rejects a candidate whose GPU was found
// busy before its timed calls or after their replies (work it left running
// to finish off the clock). On a GPU another process uses too (a trainer's
// policy generating beside the daemon, another tenant) an honest candidate
// meets the same sign: on 2026-12-06 three GRPO runs and an evaluation on
// one H100 had 51 correct answers rejected that way and scored as failed
// compiles. So the rejection stands unless the GPU is busy without the
// candidate too: the task's baseline, timed by the same rule in a fresh
// worker once the candidate's worker is reaped and the GPU's memory is back,
// is the control, run twice, 2 s apart, and both must find the GPU busy (a
// dying worker's context could outlive one run, not the gap). Only the busy
// rule: the share rule's bar is absolute, and a quiet launch-bound baseline
// may be under it itself. Before any control, the driver's own account of
// who computed on the GPU while the candidate was timed (GpuTenants.h):
// another process seen busy makes any timed answer the machine's, `ok` ones
// too (their time was not their own), whatever the control would find. Pure
// functions over answers.
#pragma once

#include <boost/json/object.hpp>

namespace cudaperf::judge {

// A `rejected` answer whose rule is the busy GPU (`rejected_by` gpu_busy).
bool rejectedForBusyGpu(const boost::json::object &answer);

// Whether a control run found the GPU busy by that rule: status ok, and its
// timing's gpu_busy_before_calls or gpu_busy_after_replies at least
// gpu_busy_calls_to_reject. False for a run that did not finish or lacks
// the counts: no evidence of another process.
bool controlFoundGpuBusy(const boost::json::object &control);

// The candidate's verdict after the control (the last control run's answer:
// the judge stops at the first that is not busy). A busy control: the
// machine's verdict (`harness_error`, `error_kind` gpu_contended), the
// candidate's rejection kept under `rejection_set_aside`; never a
// candidate's reward, and the daemon stores none of it. A quiet control, or
// one that could not run: the rejection stands. Either way the control's
// counts go with the answer (`gpu_control`).
boost::json::object verdictAfterControl(boost::json::object answer, const boost::json::object &control);

// An answer whose time the GPU's other users could have spoilt: `ok`, or
// rejected by a GPU-time rule (gpu_busy, gpu_share), with a timing.
bool timedAnswer(const boost::json::object &answer);

// Whether GpuTenants' look saw another process busy on the GPU (attributed:
// `available`, a non-empty `busy_others`).
bool tenantsFoundBusy(const boost::json::object &tenants);

// A timed answer beside a busy tenant: the machine's verdict (`harness_error`,
// `error_kind` gpu_contended, the tenants under `gpu_tenants`, a rejection
// kept under `rejection_set_aside`). Otherwise the answer as it was, with
// the look under `gpu_tenants`.
boost::json::object verdictAfterTenants(boost::json::object answer, boost::json::object tenants);

} // namespace cudaperf::judge
