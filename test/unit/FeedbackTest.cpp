// The feedback a refinement turn shows the policy, from typed stage results
// (no daemon, no socket): each verdict's words, the first failure, the speed,
// and the feature hints, as exact strings.
#include "cudaperf/daemon/Feedback.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace json = boost::json;
using namespace cudaperf;

namespace {

JudgeVerdict verdictOf(const char *answer) { return JudgeVerdict::fromAnswer(json::parse(answer).as_object()); }

AnalysisStage analysisWith(double coal, double occ, double div, bool occUnknown = false) {
  json::object report{{"features", json::object{{"coal", coal},
                                                {"ai", 1},
                                                {"occ", occ},
                                                {"div", div},
                                                {"xfer", 0},
                                                {"atomics", 0},
                                                {"sync", 0},
                                                {"kernels", 1},
                                                {"tpb", 256},
                                                {"gmem", 8},
                                                {"ops", 2}}}};
  if (occUnknown)
    report["features_unknown"] = json::array{"occ", "tpb"};
  return AnalysisStage::fromReport(report);
}

} // namespace

TEST(Feedback, AWrongAnswerNamesTheFirstFailureAndItsMismatches) {
  const JudgeVerdict verdict = verdictOf(R"({"status": "wrong_answer", "correctness": {"passed": 2, "total": 5,
      "failures": [{"sizes": {"n": 33}, "reason": "max error 2 above 1e-05", "first_mismatches": [[7, 1, 3]]}]}})");
  FeedbackInputs in;
  in.status = "wrong_answer";
  in.verdict = &verdict;
  EXPECT_EQ(feedbackText(in), "Wrong answer: 2 of 5 tests passed. First failure at sizes {\"n\":33}: max error 2 "
                              "above 1e-05. First mismatches (index, expected, actual): [[7,1,3]].");
}

TEST(Feedback, AnOkRunGivesItsTimeAndTheSpeedupTheRewardUsed) {
  const JudgeVerdict verdict = verdictOf(
      R"({"status": "ok", "correctness": {"passed": 12, "total": 12}, "timing": {"median_ms": 0.28, "cv": 0.005}})");
  FeedbackInputs in;
  in.status = "ok";
  in.verdict = &verdict;
  in.speedup = 255.5;
  in.baseline = "cpu";
  EXPECT_EQ(feedbackText(in), "Correct (12 tests). Median time 0.28 ms (CV 0.5%), speedup 255.5x against the cpu "
                              "baseline.");
  in.speedup.reset(); // no speedup over the configured baseline: none is claimed
  EXPECT_EQ(feedbackText(in), "Correct (12 tests). Median time 0.28 ms (CV 0.5%).");
}

TEST(Feedback, CompileErrorsShowTheLogsLastCharacters) {
  FeedbackInputs in;
  in.status = "compile_error";
  in.compileLog = std::string(3000, 'x') + "kernel.cu(3): error: expected a ';'";
  const std::string text = feedbackText(in);
  EXPECT_EQ(text.rfind("The code did not compile. Compiler output (last lines):\n", 0), 0u);
  EXPECT_EQ(text.size(), std::string("The code did not compile. Compiler output (last lines):\n").size() + 2000);
  EXPECT_EQ(text.substr(text.size() - 14), "expected a ';'");
}

TEST(Feedback, RejectionsSayWhy) {
  FeedbackInputs in;
  in.status = "rejected";
  in.forbidden = {"cublasSgemm"};
  EXPECT_EQ(feedbackText(in), "The candidate was rejected: it uses symbols this task does not allow "
                              "([\"cublasSgemm\"]); write the kernel yourself.");
  in.forbidden.clear();
  in.error = "no GPU work in the timed calls";
  EXPECT_EQ(feedbackText(in), "The candidate was rejected: no GPU work in the timed calls.");
}

TEST(Feedback, OtherVerdictsInTheirOwnWords) {
  FeedbackInputs in;
  in.status = "timeout";
  in.error = "past 120 s";
  EXPECT_EQ(feedbackText(in), "The evaluation did not finish in time (past 120 s): look for a kernel or host loop "
                              "that never ends.");
  in.status = "runtime_error";
  in.error = "illegal memory access";
  EXPECT_EQ(feedbackText(in), "Runtime error: illegal memory access.");
  in.status = "bad_task";
  in.error = "the reference broke";
  EXPECT_EQ(feedbackText(in), "bad_task: the reference broke");
  in.status = "no_gpu";
  in.error.clear();
  EXPECT_EQ(feedbackText(in).rfind("Compiled successfully, but this reward server has no GPU", 0), 0u);
}

TEST(Feedback, FeatureHintsFollowTheVerdict) {
  FeedbackInputs in;
  in.status = "no_gpu";
  const AnalysisStage poor = analysisWith(0.25, 0.1, 0.5);
  in.analysis = &poor;
  const std::string text = feedbackText(in);
  EXPECT_NE(text.find(" Global memory accesses look poorly coalesced (coal 0.25): make neighbouring threads touch "
                      "neighbouring addresses."),
            std::string::npos);
  EXPECT_NE(text.find(" The block size is outside 128..256 threads (occ 0.1)."), std::string::npos);
  EXPECT_NE(text.find(" Many branches diverge within a warp (div 0.5)."), std::string::npos);
  // A block size chosen at run time is unknown, not bad: no hint about it.
  const AnalysisStage runtimeBlock = analysisWith(1, 0.1, 0, true);
  in.analysis = &runtimeBlock;
  EXPECT_EQ(feedbackText(in).find("block size"), std::string::npos);
  const AnalysisStage good = analysisWith(1, 1, 0);
  in.analysis = &good;
  EXPECT_EQ(feedbackText(in).find("coal"), std::string::npos);
}

TEST(AnalysisStage, AnErrorOrAnUnreadableVectorGivesNoFeatures) {
  const AnalysisStage failed = AnalysisStage::fromReport(json::object{{"error", "the analysis timed out"}});
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.error, "the analysis timed out");
  EXPECT_FALSE(failed.features);
  EXPECT_EQ(json::serialize(failed.answerJson()), R"({"error":"the analysis timed out"})");
  const AnalysisStage unreadable = AnalysisStage::fromReport(json::object{{"features", json::object{{"coal", 1}}}});
  EXPECT_TRUE(unreadable.ok());      // the report goes out ...
  EXPECT_FALSE(unreadable.features); // ... but nothing is scored from it
  const AnalysisStage good = analysisWith(0.75, 1, 0, true);
  ASSERT_TRUE(good.features);
  EXPECT_DOUBLE_EQ(good.features->coal, 0.75);
  EXPECT_TRUE(good.features->isUnknown(*featureIndex("tpb")));
  const json::object out = good.answerJson();
  EXPECT_EQ(json::serialize(out.at("unknown")), R"(["occ","tpb"])");
  EXPECT_TRUE(out.at("report").is_object());
}

// The report's compiler branches as the reward reads them: a compiler
// branch (the first one) marks the file as unscoreable; a report that lists
// branches at all comes from an analysis that also reads the device side,
// whose features are in "device_pass".
TEST(AnalysisStage, CompilerBranchesAndTheDevicePassAreRead) {
  json::object report = analysisWith(1, 1, 0).report;
  report["compiler_branches"] = json::array{json::object{{"macro", "__CUDA_ARCH__"}, {"line", 4}, {"side", true}}};
  json::object device = analysisWith(0.25, 1, 0).report;
  report["device_pass"] = json::object{{"features", device.at("features")}};
  const AnalysisStage side = AnalysisStage::fromReport(report);
  EXPECT_TRUE(side.devicePassExpected);
  EXPECT_FALSE(side.compilerDependent); // __CUDA_ARCH__ is what the device pass reads
  ASSERT_TRUE(side.devicePassFeatures);
  EXPECT_DOUBLE_EQ(side.devicePassFeatures->coal, 0.25);
  EXPECT_DOUBLE_EQ(side.features->coal, 1.0);

  report["compiler_branches"].as_array().push_back(json::object{{"macro", "__NVCC__"}, {"line", 9}, {"side", false}});
  report["compiler_branches"].as_array().push_back(json::object{{"macro", "##"}, {"line", 12}, {"side", false}});
  const AnalysisStage compiler = AnalysisStage::fromReport(report);
  ASSERT_TRUE(compiler.compilerDependent);
  EXPECT_EQ(compiler.compilerDependent->macro, "__NVCC__");
  EXPECT_EQ(compiler.compilerDependent->line, 9u);

  report.erase("device_pass"); // the device side did not read
  report["compiler_branches"] = json::array{};
  const AnalysisStage unread = AnalysisStage::fromReport(report);
  EXPECT_TRUE(unread.devicePassExpected);
  EXPECT_FALSE(unread.devicePassFeatures);

  // A malformed list is a report that scores nothing, not a crash.
  report["compiler_branches"] = json::array{json::object{{"macro", 7}}};
  EXPECT_FALSE(AnalysisStage::fromReport(report).features);
  // A report of an analysis before compiler branches: neither expected nor found.
  const AnalysisStage older = analysisWith(1, 1, 0);
  EXPECT_FALSE(older.devicePassExpected);
  EXPECT_FALSE(older.compilerDependent);
  EXPECT_FALSE(older.devicePassFeatures);
}

TEST(AnalysisStage, TheEntryWalksSizedLaunchesAreRead) {
  json::object report = analysisWith(1, 1, 0).report;
  EXPECT_TRUE(AnalysisStage::fromReport(report).entryLaunchShapes.empty());
  report["entry_launches"] =
      json::array{json::object{{"kernel", "k"}, {"blocks", 2097152}, {"threads_per_block", 32}, {"threads", 67108864}},
                  json::object{{"kernel", "k"}, {"blocks", 1}, {"threads_per_block", 32}, {"threads", 32}}};
  report["entry_launches_problem"] = "the launch at a.cu:9:5 runs or not";
  report["entry_launches_complete"] = false; // a launch not sized: none of the listed ones is known to stand
  EXPECT_TRUE(AnalysisStage::fromReport(report).entryLaunchShapes.empty());
  report["entry_launches_complete"] = true;
  const AnalysisStage doubted = AnalysisStage::fromReport(report);
  ASSERT_EQ(doubted.entryLaunchShapes.size(), 2u);
  EXPECT_DOUBLE_EQ(doubted.entryLaunchShapes[0].blocks, 2097152);
  EXPECT_DOUBLE_EQ(doubted.entryLaunchShapes[1].threads, 32);
  // A launch with no size is a report that scores nothing, not a crash.
  report["entry_launches"] = json::array{json::object{{"kernel", "k"}, {"blocks", 0}}};
  EXPECT_FALSE(AnalysisStage::fromReport(report).features);
}
