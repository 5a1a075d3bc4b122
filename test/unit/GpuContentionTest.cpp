// Whose a busy GPU is: the control run's reading of a candidate's
// GPU-time rejection, on answers as the judge writes them.
#include "GpuContention.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace json = boost::json;
using namespace cudaperf::judge;

namespace {

// A timed run's timing as LibraryRun writes it: 30 timed calls, the busy
// rule's threshold of 3, a share minimum of 5 %.
json::object timedRun(const char *status, int busyBefore, int busyAfter, double share = 0.9) {
  return json::object{{"status", status},
                      {"timing", json::object{{"timed_calls", 30},
                                              {"gpu_busy_before_calls", busyBefore},
                                              {"gpu_busy_after_replies", busyAfter},
                                              {"gpu_busy_calls_to_reject", 3},
                                              {"gpu_share", share},
                                              {"gpu_share_minimum", 0.05}}}};
}

json::object rejected(const char *rule, int busyBefore, int busyAfter, double share = 0.9) {
  json::object answer = timedRun("rejected", busyBefore, busyAfter, share);
  answer["rejected_by"] = rule;
  answer["error"] = "the GPU was busy with work the candidate left running between calls";
  answer["sandbox"] = json::object{{"outcome", "retired"}};
  return answer;
}

std::string status(const json::object &answer) { return std::string(answer.at("status").as_string()); }

} // namespace

TEST(GpuContention, OnlyTheBusyRuleAsksForAControl) {
  EXPECT_TRUE(rejectedForBusyGpu(rejected("gpu_busy", 8, 0)));
  // The share rule's bar is absolute: a quiet launch-bound baseline can be under it itself.
  EXPECT_FALSE(rejectedForBusyGpu(rejected("gpu_share", 0, 0, 0.01)));
  EXPECT_FALSE(rejectedForBusyGpu(rejected("cpu_budget", 0, 0)));
  json::object tampered{{"status", "rejected"}, {"error", "wrote into the judge's channel"}};
  EXPECT_FALSE(rejectedForBusyGpu(tampered)); // no rule named: a cheat, never the machine's
  json::object ok = timedRun("ok", 8, 0);
  ok["rejected_by"] = "gpu_busy"; // only a rejection is reconsidered
  EXPECT_FALSE(rejectedForBusyGpu(ok));
}

TEST(GpuContention, AControlIsBusyByItsOwnCountsAgainstItsOwnThreshold) {
  EXPECT_FALSE(controlFoundGpuBusy(timedRun("ok", 0, 0)));
  EXPECT_FALSE(controlFoundGpuBusy(timedRun("ok", 2, 2))); // under 3 each: not busy
  EXPECT_TRUE(controlFoundGpuBusy(timedRun("ok", 3, 0)));
  EXPECT_TRUE(controlFoundGpuBusy(timedRun("ok", 0, 3)));
  EXPECT_FALSE(controlFoundGpuBusy(timedRun("ok", 0, 0, 0.01))); // a low share is no evidence
  EXPECT_FALSE(controlFoundGpuBusy(timedRun("timeout", 9, 9)));  // a run that did not finish proves nothing
  EXPECT_FALSE(controlFoundGpuBusy(json::object{{"status", "ok"}}));
  json::object fractional = timedRun("ok", 0, 0);
  fractional["timing"].as_object()["gpu_busy_before_calls"] = 3.5; // read, never thrown on
  EXPECT_TRUE(controlFoundGpuBusy(fractional));
}

TEST(GpuContention, AQuietControlLeavesTheRejectionStanding) {
  const json::object verdict = verdictAfterControl(rejected("gpu_busy", 8, 5), timedRun("ok", 0, 1));
  EXPECT_EQ(status(verdict), "rejected");
  EXPECT_EQ(verdict.at("rejected_by").as_string(), "gpu_busy");
  const json::object &control = verdict.at("gpu_control").as_object();
  EXPECT_EQ(control.at("gpu_busy_before_calls").as_int64(), 0);
  EXPECT_EQ(control.at("gpu_busy_after_replies").as_int64(), 1);
}

TEST(GpuContention, ABusyControlMakesItTheMachinesVerdict) {
  // The 2026-12-06 H100 case: a correct tiled gemm found busy before 8 of 30
  // calls while three trainers shared the GPU; the baseline then sees 6.
  const json::object verdict = verdictAfterControl(rejected("gpu_busy", 8, 0), timedRun("ok", 6, 2));
  EXPECT_EQ(status(verdict), "harness_error");
  EXPECT_EQ(verdict.at("error_kind").as_string(), "gpu_contended");
  EXPECT_NE(std::string(verdict.at("error").as_string()).find("before 6 and after the replies of 2 of 30"),
            std::string::npos)
      << verdict.at("error");
  const json::object &setAside = verdict.at("rejection_set_aside").as_object();
  EXPECT_EQ(setAside.at("status").as_string(), "rejected");
  EXPECT_EQ(setAside.at("rejected_by").as_string(), "gpu_busy");
  EXPECT_TRUE(verdict.contains("sandbox")); // the candidate's worker account still travels
  EXPECT_FALSE(verdict.contains("rejected_by"));
}

TEST(GpuContention, AControlThatCouldNotRunLeavesTheRejectionStanding) {
  // A candidate that fills the GPU's memory so that the control's worker
  // cannot start must not turn its own rejection into the machine's.
  json::object noWorker{{"status", "no_gpu"}, {"error", "the worker did not start"}};
  const json::object verdict = verdictAfterControl(rejected("gpu_busy", 4, 0), noWorker);
  EXPECT_EQ(status(verdict), "rejected");
  EXPECT_EQ(verdict.at("gpu_control").as_object().at("status").as_string(), "no_gpu");
}
