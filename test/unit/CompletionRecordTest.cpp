// A run's completions log: a correct answer keeps its source whatever the
// caller asks (what the reward paid for must be readable later), a failed
// one only when asked; a refused request and no answer are named as such.
#include "cudaperf/trainer/CompletionRecord.h"

#include <gtest/gtest.h>

using cudaperf::trainer::completionRecord;
using cudaperf::trainer::RewardAnswer;
using cudaperf::trainer::RewardRequest;
namespace json = boost::json;

namespace {

RewardAnswer answered(const std::string &status, double reward) {
  RewardAnswer a;
  a.ok = true;
  a.httpStatus = 200;
  a.status = status;
  a.reward = reward;
  a.rVer = reward - 0.25;
  a.rStr = 0.25;
  a.body =
      json::parse(R"({"status": ")" + status + R"(", "timing": {"median_ms": 0.5, "speedup_gpu": 2.0}})").as_object();
  return a;
}

} // namespace

TEST(CompletionRecordTest, ACorrectAnswerKeepsItsSourceAndTiming) {
  RewardAnswer a = answered("ok", 1.75);
  a.speedup = 2.0;
  const json::object r = completionRecord({"relu", "__global__ void k() {}", 2}, a, false);
  EXPECT_EQ(r.at("task").as_string(), "relu");
  EXPECT_EQ(r.at("turn").as_int64(), 2);
  EXPECT_EQ(r.at("status").as_string(), "ok");
  EXPECT_DOUBLE_EQ(r.at("reward").as_double(), 1.75);
  EXPECT_DOUBLE_EQ(r.at("r_ver").as_double(), 1.5);
  EXPECT_DOUBLE_EQ(r.at("r_str").as_double(), 0.25);
  EXPECT_DOUBLE_EQ(r.at("speedup").as_double(), 2.0);
  EXPECT_DOUBLE_EQ(r.at("timing").at("speedup_gpu").as_double(), 2.0);
  EXPECT_EQ(r.at("source").as_string(), "__global__ void k() {}");
}

TEST(CompletionRecordTest, AFailedAnswerKeepsItsSourceOnlyWhenAsked) {
  const RewardAnswer a = answered("compile_error", -3);
  const json::object without = completionRecord({"relu", "garbage", 1}, a, false);
  EXPECT_EQ(without.at("status").as_string(), "compile_error");
  EXPECT_FALSE(without.contains("source"));
  EXPECT_TRUE(without.at("speedup").is_null());
  EXPECT_EQ(completionRecord({"relu", "garbage", 1}, a, true).at("source").as_string(), "garbage");
  // A policy's bytes need not be UTF-8: the line stays JSON a strict reader takes.
  const std::string line = json::serialize(completionRecord({"relu", "x\x90y", 1}, a, true));
  EXPECT_EQ(json::parse(line).at("source").as_string(), "x\xEF\xBF\xBDy");
}

TEST(CompletionRecordTest, TheFeedbackAJudgedAnswerGotIsKept) {
  RewardAnswer a = answered("compile_error", -3);
  a.feedback = "Your code did not compile:\nkernel.cu(3): error: identifier \"n\" is undefined";
  EXPECT_EQ(completionRecord({"relu", "garbage", 1}, a, true).at("feedback").as_string(), a.feedback);
  RewardAnswer refused;
  refused.httpStatus = 413;
  refused.feedback = "The reward server refused the answer";
  EXPECT_FALSE(completionRecord({"relu", "garbage", 1}, refused, true).contains("feedback")); // no verdict, no feedback
}

TEST(CompletionRecordTest, RefusedAndUnansweredRequestsAreNamed) {
  RewardAnswer slow = answered("compile_error", -3);
  slow.seconds = 121.5;
  slow.attempts = 2;
  slow.body["profile"] = json::object{{"nvcc_seconds", 120.25}};
  const json::object timed = completionRecord({"relu", "x", 1}, slow, false);
  EXPECT_DOUBLE_EQ(timed.at("seconds").as_double(), 121.5); // a stalled step names its slow answer
  EXPECT_EQ(timed.at("attempts").as_int64(), 2);
  EXPECT_DOUBLE_EQ(timed.at("profile").at("nvcc_seconds").as_double(), 120.25);

  RewardAnswer refused;
  refused.httpStatus = 413;
  refused.error = "source too large";
  const json::object r = completionRecord({"relu", "x", 1}, refused, false);
  EXPECT_EQ(r.at("status").as_string(), "request_refused");
  EXPECT_EQ(r.at("error").as_string(), "source too large");
  EXPECT_TRUE(r.at("reward").is_null());
  RewardAnswer none;
  none.error = "connection refused";
  EXPECT_EQ(completionRecord({"relu", "x", 1}, none, false).at("status").as_string(), "no_answer");
}
