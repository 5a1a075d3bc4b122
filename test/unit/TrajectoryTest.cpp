// Multi-turn bookkeeping: per-turn advantages and DCP routing worked out by
// hand, the code taken out of completions, the task prompt, and a
// conversation that only ever appends token ids (never re-tokenises a turn).
#include "cudaperf/trainer/KernelPrompt.h"
#include "cudaperf/trainer/SftData.h"
#include "cudaperf/trainer/TrajectoryAdvantages.h"

#include "ByteTokenizer.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

using namespace cudaperf;
using namespace cudaperf::trainer;

namespace {

TurnOutcome pass(double reward, double speedup = 1) { return {reward, true, speedup}; }
TurnOutcome fail(double reward) { return {reward, false, std::nullopt}; }

// T1 passes at once; T2 fails then passes; T3 fails twice.
const std::vector<TrajectoryOutcomes> kGroup{{pass(1)}, {fail(-1), pass(2)}, {fail(-1), fail(-1)}};

TEST(TrajectoryAdvantagesTest, DrGrpoOnDiscountedTurnReturns) {
  AdvantageOptions options;
  options.mode = TrajectoryAdvantage::DrGrpo;
  options.gamma = 0.5;
  const auto a = trajectoryAdvantages(kGroup, options);
  // Returns: T1 [1]; T2 [-1 + 0.5 * 2, 2] = [0, 2]; T3 [-1 + 0.5 * -1, -1] = [-1.5, -1].
  // Turn 1: mean -1/6; turn 2 (T2 and T3 only): mean 0.5.
  EXPECT_NEAR(a[0][0], 1 + 1.0 / 6, 1e-12);
  EXPECT_NEAR(a[1][0], 0 + 1.0 / 6, 1e-12);
  EXPECT_NEAR(a[2][0], -1.5 + 1.0 / 6, 1e-12);
  EXPECT_NEAR(a[1][1], 1.5, 1e-12);
  EXPECT_NEAR(a[2][1], -1.5, 1e-12);
  EXPECT_EQ(a[0].size(), 1u);
}

TEST(TrajectoryAdvantagesTest, GrpoDividesByTheTurnsStandardDeviation) {
  AdvantageOptions options;
  options.gamma = 0.5;
  const auto a = trajectoryAdvantages(kGroup, options);
  const double mean = -1.0 / 6;
  const double sd = std::sqrt(((1 - mean) * (1 - mean) + mean * mean + (-1.5 - mean) * (-1.5 - mean)) / 2);
  EXPECT_NEAR(a[0][0], (1 - mean) / (sd + 1e-4), 1e-9);
  EXPECT_NEAR(a[2][0], (-1.5 - mean) / (sd + 1e-4), 1e-9);
  const double sd2 = std::sqrt((1.5 * 1.5 * 2) / 1); // [2, -1]: mean 0.5, Bessel over 2
  EXPECT_NEAR(a[1][1], 1.5 / (sd2 + 1e-4), 1e-9);
}

TEST(TrajectoryAdvantagesTest, RankRewardIsTheSameForEveryTurnOfATrajectory) {
  AdvantageOptions options;
  options.mode = TrajectoryAdvantage::Rank;
  const auto a = trajectoryAdvantages(kGroup, options);
  EXPECT_EQ(a[0], (std::vector<double>{1.0}));        // first-turn pass beats both
  EXPECT_EQ(a[1], (std::vector<double>{0.0, 0.0}));   // one better, one worse
  EXPECT_EQ(a[2], (std::vector<double>{-1.0, -1.0})); // the failure
  // Passes of the same turn, ordered by speedup.
  const auto tied = trajectoryAdvantages({{pass(1, 3.0)}, {pass(1, 1.5)}}, options);
  EXPECT_EQ(tied[0][0], 1.0);
  EXPECT_EQ(tied[1][0], -1.0);
}

TEST(TrajectoryAdvantagesTest, AGroupOfOneAndEqualRewardsTeachNothing) {
  for (auto mode : {TrajectoryAdvantage::Grpo, TrajectoryAdvantage::DrGrpo, TrajectoryAdvantage::Rank}) {
    AdvantageOptions options;
    options.mode = mode;
    EXPECT_TRUE(allAdvantagesZero(trajectoryAdvantages({{fail(-1), pass(2)}}, options)));
    EXPECT_TRUE(allAdvantagesZero(trajectoryAdvantages({{fail(-1)}, {fail(-1)}, {fail(-1)}}, options)));
  }
  EXPECT_FALSE(allAdvantagesZero(trajectoryAdvantages(kGroup, {})));
  EXPECT_THROW(parseTrajectoryAdvantage("ppo"), std::invalid_argument);
}

TEST(TrajectoryAdvantagesTest, DcpGivesMoreTurnsOnlyToGroupsInsideTheGate) {
  const DcpGate gate{1, 2};
  EXPECT_TRUE(takesAnotherTurn({{pass(1)}, {fail(-1)}, {fail(-1)}}, 1, 3, gate));   // 2 failures
  EXPECT_FALSE(takesAnotherTurn({{fail(-1)}, {fail(-1)}, {fail(-1)}}, 1, 3, gate)); // 3: too hard
  EXPECT_FALSE(takesAnotherTurn({{pass(1)}, {pass(1)}, {pass(1)}}, 1, 3, gate));    // solved
  EXPECT_FALSE(takesAnotherTurn({{pass(1)}, {fail(-1)}, {fail(-1)}}, 3, 3, gate));  // no turns left
}

TEST(KernelPromptTest, TheLastCodeBlockIsTheCandidate) {
  EXPECT_EQ(extractKernelSource("Plan:\n```text\nsteps\n```\nCode:\n```cuda\n__global__ void k() {}\n```\nDone."),
            "__global__ void k() {}\n");
  EXPECT_EQ(extractKernelSource("```cpp\nint a;\n```\n```cu\nint b;\n```"), "int b;\n");
  EXPECT_EQ(extractKernelSource("```cuda\n__global__ void k() { // ran out of tokens"),
            "__global__ void k() { // ran out of tokens");
  EXPECT_EQ(extractKernelSource("__global__ void bare() {}"), "__global__ void bare() {}");
}

TEST(KernelPromptTest, TheTaskMessageCarriesEverythingTheKernelNeeds) {
  const TaskSpec task = loadTask(std::filesystem::path(CUDAPERF_TASKS_DIR) / "vector_add");
  const std::string message = taskMessage(task);
  EXPECT_NE(message.find(task.signature), std::string::npos);
  EXPECT_NE(message.find("- c: float32*, output, n elements"), std::string::npos) << message;
  EXPECT_NE(message.find("- n: int32 = n"), std::string::npos) << message;
  EXPECT_NE(message.find("measured at n=67108864"), std::string::npos) << message;
  EXPECT_NE(message.find("```c\n"), std::string::npos);
  EXPECT_NE(message.find("c[i] = a[i] + b[i]"), std::string::npos);
}

Tokenizer chatTokenizer() { return Tokenizer::fromJsonText(byteTokenizerJson(true), "chat"); }

TEST(ConversationTest, TurnsOnlyAppendIdsAndMaskWhatThePolicyWrote) {
  const Tokenizer tokenizer = chatTokenizer();
  const TaskSpec task = loadTask(std::filesystem::path(CUDAPERF_TASKS_DIR) / "vector_add");
  Conversation conversation(tokenizer, task);
  const auto prompt = conversation.ids();
  EXPECT_EQ(tokenizer.decode(std::vector<std::int32_t>(prompt.begin(), prompt.end())),
            Tokenizer::chatPrompt({{"system", kKernelSystemPrompt}, {"user", taskMessage(task)}}));
  // A completion whose ids would not come back from encoding its text (a
  // split the tokenizer would never make): it must stay exactly as sampled.
  const std::vector<std::int64_t> first{'a', 'b', 257};
  conversation.addCompletion(first);
  conversation.addFeedback("Wrong answer: 0 of 5 tests passed.");
  const auto afterOne = conversation.ids();
  ASSERT_GT(afterOne.size(), prompt.size() + first.size());
  EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), afterOne.begin()));
  EXPECT_TRUE(std::equal(first.begin(), first.end(), afterOne.begin() + prompt.size()));
  // The completion ended with <|im_end|>: not closed twice.
  const std::string feedback(
      tokenizer.decode(std::vector<std::int32_t>(afterOne.begin() + prompt.size() + 3, afterOne.end())));
  EXPECT_EQ(feedback,
            "\n" + Tokenizer::chatPrompt({{"user", refinementMessage("Wrong answer: 0 of 5 tests passed.")}}));
  // A second completion cut by the length limit: the feedback closes it.
  conversation.addCompletion({'x'});
  conversation.addFeedback("Compiled.");
  const auto &ids = conversation.ids();
  const std::size_t secondAt = afterOne.size();
  EXPECT_EQ(ids[secondAt], 'x');
  EXPECT_EQ(ids[secondAt + 1], 257);
  // The mask: exactly the four completion tokens, with their turns.
  std::vector<std::int32_t> turns;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (conversation.policyMask()[i])
      turns.push_back(conversation.turnOf()[i]);
  EXPECT_EQ(turns, (std::vector<std::int32_t>{1, 1, 1, 2}));
  EXPECT_EQ(conversation.turns(), 2);
}

} // namespace

// SFT pairs from the suite: what GRPO's turn 1 is sampled from, token for token.
TEST(SftDataTest, EveryCorrectSourceOfEveryTaskUnderItsFirstTurnPrompt) {
  const std::vector<TaskSpec> suite = loadSuite(std::filesystem::path(CUDAPERF_TASKS_DIR));
  const auto lines = sftLinesOf(suite);
  const Tokenizer tokenizer = chatTokenizer();
  std::size_t expected = 0, checked = 0;
  for (const TaskSpec &task : suite) {
    std::vector<std::filesystem::path> sources;
    if (task.baseline)
      sources.push_back(*task.baseline);
    for (const VariantSpec &variant : task.variants)
      if (variant.expectPass)
        sources.push_back(variant.file);
    expected += sources.size();
    std::size_t k = 0;
    for (const auto &line : lines) {
      if (line.at("task").as_string() != task.name)
        continue;
      ASSERT_LT(k, sources.size()) << task.name;
      // The source comes back out of the answer byte for byte, as the daemon would get it.
      std::ifstream file(sources[k]);
      const std::string source((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      EXPECT_EQ(extractKernelSource(std::string(line.at("completion").as_string())), source) << sources[k];
      EXPECT_EQ(sftPromptText(line, true), firstTurnContext(task)) << task.name;
      if (k == 0) { // the same ids as the conversation GRPO samples turn 1 from
        const auto ids = tokenizer.encode(sftPromptText(line, true));
        const Conversation conversation(tokenizer, task);
        const auto &sampled = conversation.ids();
        EXPECT_TRUE(std::equal(ids.begin(), ids.end(), sampled.begin(), sampled.end())) << task.name;
      }
      ++k, ++checked;
    }
    EXPECT_EQ(k, sources.size()) << task.name;
  }
  EXPECT_EQ(lines.size(), expected);
  EXPECT_EQ(checked, expected);
  // relu's leaky.cu is written to fail: never a target.
  for (const auto &line : lines)
    EXPECT_FALSE(line.at("task").as_string() == "relu" && line.at("variant").as_string() == "variants/leaky.cu");
}

TEST(SftDataTest, APromptWithoutASystemMessageIsAUserTurnAlone) {
  boost::json::object line{{"prompt", "write saxpy"}, {"completion", "x"}};
  EXPECT_EQ(sftPromptText(line, true), "<|im_start|>user\nwrite saxpy<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(sftPromptText(line, false), "write saxpy");
  line["system"] = "be fast";
  EXPECT_EQ(sftPromptText(line, true),
            "<|im_start|>system\nbe fast<|im_end|>\n<|im_start|>user\nwrite saxpy<|im_end|>\n<|im_start|>assistant\n");
  line["system"] = 7;
  EXPECT_THROW(sftPromptText(line, true), std::invalid_argument);
  EXPECT_EQ(fencedAnswer("int x;"), "```cuda\nint x;\n```");
  EXPECT_EQ(extractKernelSource(fencedAnswer("int x;\n")), "int x;\n");
}

// Refinement pairs: a failed attempt and its feedback as the earlier exchange,
// a correct source as the answer; the prompt is, token for token, the context
// GRPO samples a second turn from after that attempt and that feedback.
TEST(SftDataTest, ARefinementPairIsTheSecondTurnGrpoWouldSample) {
  const std::vector<TaskSpec> tasks = {loadTask(std::filesystem::path(CUDAPERF_TASKS_DIR) / "vector_add"),
                                       loadTask(std::filesystem::path(CUDAPERF_TASKS_DIR) / "relu")};
  const std::string broken = "extern \"C\" void vector_add(const float *a, float *c, int n) { c[0] = a[0] }";
  const std::string feedback = "Your code did not compile:\nkernel.cu(1): error: expected a \";\"";
  const std::vector<FailedAttempt> attempts = {
      {"vector_add", broken, feedback},
      {"vector_add", broken, feedback},           // the same source again: once
      {"vector_add", "int x;", ""},               // no feedback: left out
      {"softmax_rows", "int y;", "Wrong answer"}, // not one of the tasks
      {"vector_add", "int z;", "Wrong answer: 0 of 5 tests passed."},
      {"vector_add", "int w;", "Wrong answer: 1 of 5 tests passed."}, // past the cap of 2
      {"relu", "int v;", "Runtime error"}};
  const auto lines = refinementLinesOf(tasks, attempts, 2);
  ASSERT_EQ(lines.size(), 3u);
  const auto firstTurn = sftLinesOf(tasks);
  // The targets in turn: vector_add's first two first-turn answers, relu's first.
  EXPECT_EQ(lines[0].at("completion"), firstTurn[0].at("completion"));
  EXPECT_EQ(lines[1].at("completion"), firstTurn[1].at("completion"));
  EXPECT_EQ(std::string(lines[0].at("variant").as_string()).rfind("refinement:", 0), 0u);
  EXPECT_EQ(lines[2].at("task").as_string(), "relu");

  const Tokenizer tokenizer = chatTokenizer();
  Conversation conversation(tokenizer, tasks[0]);
  std::vector<std::int64_t> answer;
  for (auto id : tokenizer.encode(fencedAnswer(broken)))
    answer.push_back(id);
  const auto end = tokenizer.encode("<|im_end|>");
  ASSERT_EQ(end.size(), 1u);
  answer.push_back(end[0]); // the sampler's stop: the message is closed
  conversation.addCompletion(answer);
  conversation.addFeedback(feedback);
  const auto &grpo = conversation.ids();
  const auto sft = tokenizer.encode(sftPromptText(lines[0], true));
  EXPECT_TRUE(std::equal(sft.begin(), sft.end(), grpo.begin(), grpo.end()))
      << tokenizer.decode(std::vector<std::int32_t>(grpo.begin(), grpo.end()));
  EXPECT_THROW(sftPromptText(lines[0], false), std::invalid_argument); // a history needs the chat template
  boost::json::object malformed = lines[0];
  malformed["history"] = boost::json::array{boost::json::object{{"completion", "x"}}};
  EXPECT_THROW(sftPromptText(malformed, true), std::invalid_argument);
}
