// The GRPO loop on a tiny random policy: an interrupted and resumed run gives
// the same losses as an uninterrupted one; multi-turn with DCP takes the
// second turn only where the gate admits it, and the diagnostic mode logs the
// pruned groups' recovery; AdamW and the schedule against hand values. The
// rewards here come from a stand-in scorer of the completion's text (the real
// daemon is the integration test's): deterministic, so resumes can be compared.
#include "cudaperf/trainer/GrpoTrainer.h"
#include "cudaperf/trainer/AdamW.h"

#include "ByteTokenizer.h"
#include "TinyGrpo.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace cudaperf::trainer;
using namespace tiny_grpo;
namespace fs = std::filesystem;
namespace json = boost::json;

TEST(GrpoTrainerTest, AResumedRunGivesTheUninterruptedRunsLosses) {
  const fs::path model = makeModel("resume");
  const fs::path whole = model.string() + "-whole", parts = model.string() + "-parts";
  fs::remove_all(whole);
  fs::remove_all(parts);
  std::ostringstream quiet;
  {
    TextScorer scorer;
    GrpoTrainer trainer(tinyConfig(model, whole), scorer);
    trainer.run(quiet);
  }
  {
    TextScorer scorer;
    GrpoTrainer trainer(tinyConfig(model, parts), scorer);
    trainer.run(quiet, 2); // interrupted after two of the three steps
  }
  {
    TextScorer scorer;
    GrpoConfig config = tinyConfig(model, parts);
    config.resume = "latest";
    GrpoTrainer trainer(config, scorer);
    EXPECT_EQ(trainer.stepsDone(), 2);
    trainer.run(quiet);
    EXPECT_EQ(scorer.calls, 6); // one step's completions: nothing replayed
  }
  const auto a = readLog(whole), b = readLog(parts);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  bool trained = false;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a[i].at("step").as_int64(), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(b[i].at("step").as_int64(), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(a[i].at("loss").as_double(), b[i].at("loss").as_double()) << "step " << i + 1;
    EXPECT_EQ(a[i].at("reward_mean").as_double(), b[i].at("reward_mean").as_double()) << "step " << i + 1;
    trained |= a[i].at("trained_completions").as_int64() > 0 && a[i].at("grad_norm").as_double() > 0;
    EXPECT_NEAR(a[i].at("logprob_agreement").as_double(), 1.0, 1e-3); // sampler and trainer agree
    // Peak device memory per phase: none on the CPU.
    EXPECT_EQ(a[i].at("cuda_peak_bytes").at("generate").as_int64(), 0);
    EXPECT_EQ(a[i].at("cuda_peak_bytes").at("train").as_int64(), 0);
  }
  EXPECT_TRUE(trained) << "no step trained: the comparison proves nothing";
  for (const char *file :
       {"model.safetensors", "config.json", "tokenizer.json", "optimizer.safetensors", "trainer_state.json"})
    EXPECT_TRUE(fs::exists(parts / "step-3" / file)) << file;
  for (const auto &dir : {model, whole, parts})
    fs::remove_all(dir);
}

TEST(GrpoTrainerTest, ATimeLimitStopsAfterTheStepThatReachesItWithACheckpoint) {
  const fs::path model = makeModel("seconds");
  const fs::path out = model.string() + "-out";
  fs::remove_all(out);
  std::ostringstream quiet;
  GrpoConfig config = tinyConfig(model, out);
  config.checkpointEvery = 1000; // only the stop itself leaves a checkpoint
  {
    TextScorer scorer;
    GrpoTrainer(config, scorer).run(quiet, 0, 1e-9); // any step takes longer than a nanosecond
  }
  EXPECT_EQ(readLog(out).size(), 1u);
  EXPECT_TRUE(fs::exists(out / "step-1" / "optimizer.safetensors"));
  EXPECT_NE(quiet.str().find("stopping after"), std::string::npos) << quiet.str();
  {
    TextScorer scorer;
    config.resume = "latest";
    GrpoTrainer trainer(config, scorer);
    EXPECT_EQ(trainer.stepsDone(), 1);
    trainer.run(quiet, 0, 3600); // not reached: the run ends at its last step
  }
  EXPECT_EQ(readLog(out).size(), static_cast<std::size_t>(config.steps));
  for (const auto &dir : {model, out})
    fs::remove_all(dir);
}

TEST(GrpoTrainerTest, ALoraRunResumesExactlyAndItsCheckpointIsAPlainModel) {
  const fs::path model = makeModel("lora");
  const fs::path whole = model.string() + "-whole", parts = model.string() + "-parts";
  fs::remove_all(whole);
  fs::remove_all(parts);
  std::ostringstream quiet;
  auto config = [&](const fs::path &out) {
    GrpoConfig c = tinyConfig(model, out);
    c.steps = 2;
    c.loraRank = 4;
    c.learningRate = 5e-2;
    return c;
  };
  {
    TextScorer scorer;
    GrpoTrainer(config(whole), scorer).run(quiet);
  }
  {
    TextScorer scorer;
    GrpoTrainer(config(parts), scorer).run(quiet, 1);
  }
  {
    TextScorer scorer;
    GrpoConfig c = config(parts);
    c.resume = "latest";
    GrpoTrainer trainer(c, scorer);
    EXPECT_EQ(trainer.stepsDone(), 1);
    trainer.run(quiet);
  }
  const auto a = readLog(whole), b = readLog(parts);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[1].at("loss").as_double(), b[1].at("loss").as_double());
  EXPECT_GT(a[0].at("grad_norm").as_double(), 0.0); // the adapters did get gradients
  EXPECT_TRUE(fs::exists(parts / "step-2" / "lora.safetensors"));
  // The checkpoint's model files are the merged weights: they load as a plain model.
  EXPECT_FALSE(PolicyModel::load((parts / "step-2").string(), torch::kCPU, torch::kFloat32).hasLora());
  for (const auto &dir : {model, whole, parts})
    fs::remove_all(dir);
}

TEST(GrpoTrainerTest, MultiTurnFollowsTheDcpGateAndTheDiagnosticLogsRecovery) {
  const fs::path model = makeModel("turns");
  const fs::path out = model.string() + "-out";
  fs::remove_all(out);
  std::ostringstream quiet;
  GrpoConfig config = tinyConfig(model, out);
  config.steps = 1;
  config.maxTurns = 2;
  config.checkpointEvery = 0;
  {
    TextScorer scorer;
    GrpoTrainer trainer(config, scorer);
    const auto record = trainer.step();
    const auto &rates = record.at("pass_rate_per_turn").as_array();
    ASSERT_EQ(rates.size(), 2u);
    // Every group with a failure is admitted (tau 1..inf): its failures took turn 2.
    if (!record.at("dcp_activation").is_null())
      EXPECT_EQ(record.at("dcp_activation").as_double(), 1.0);
    EXPECT_EQ(scorer.calls, 6 + static_cast<int>(std::round((1 - rates[0].as_double()) * 6)));
    EXPECT_TRUE(record.at("dcp_recovery").is_null());
  }
  config.dcpTauMax = 0; // no group admitted; the diagnostic runs their next turn untrained
  config.dcpDiagnostic = true;
  {
    TextScorer scorer;
    GrpoTrainer trainer(config, scorer);
    const auto record = trainer.step();
    EXPECT_TRUE(record.at("pass_rate_per_turn").as_array()[1].is_null()); // nothing trained on turn 2
    const double firstPass = record.at("pass_rate_per_turn").as_array()[0].as_double();
    if (firstPass < 1.0) {
      EXPECT_FALSE(record.at("dcp_recovery").is_null());
      EXPECT_EQ(record.at("dcp_activation").as_double(), 0.0);
    }
  }
  fs::remove_all(model);
  fs::remove_all(out);
}

namespace {

// A daemon whose machine cannot judge one task's answers (its GPU taken by
// another process, say): those come back as the machine's verdict after the
// client's last attempt; the rest as the text scorer says. `everything`:
// no answer can be judged. `silent`: no HTTP answer at all.
class PartlyBrokenMachine : public RewardSource {
public:
  std::vector<RewardAnswer> evaluate(const std::vector<RewardRequest> &requests) override {
    if (broken.empty())
      broken = requests.front().task;
    std::vector<RewardAnswer> out = judged.evaluate(requests);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (!everything && !silent && requests[i].task != broken)
        continue;
      RewardAnswer machine;
      machine.httpStatus = silent ? 0 : 200;
      machine.attempts = 6;
      machine.error = "the daemon could not judge the answer (harness_error): gpu_contended";
      if (!silent)
        machine.body = json::object{{"status", "harness_error"}, {"machine_verdict", true}};
      machine.status = silent ? "" : "harness_error";
      out[i] = machine;
    }
    return out;
  }
  TextScorer judged;
  std::string broken;
  bool everything = false, silent = false;
};

} // namespace

// A group with an answer the machine could not judge is left out of the step
// (never scored as a failure, nor as 0), the other groups train; a step whose
// every group is left out stops the run, as does a daemon that never answers.
TEST(GrpoTrainerTest, AGroupTheMachineCannotJudgeIsLeftOut) {
  const fs::path model = makeModel("unjudged");
  const fs::path out = model.string() + "-out";
  fs::remove_all(out);
  GrpoConfig config = tinyConfig(model, out);
  config.steps = 1;
  config.maxTurns = 2;
  config.dcpTauMin = 1; // every group with a failure would take turn 2
  config.dcpTauMax = 3;
  config.checkpointEvery = 0;
  {
    PartlyBrokenMachine machine;
    GrpoTrainer trainer(config, machine);
    const auto record = trainer.step();
    EXPECT_EQ(record.at("groups_unjudged").to_number<double>(), 1.0);
    EXPECT_EQ(record.at("answers_unjudged").to_number<double>(), 3.0); // its 3 first-turn answers
    // The judged group's 3 first-turn answers are the whole pass-rate denominator: none of the broken
    // task's answers reached turn 2 (they would have been sent with their daemon's feedback).
    const int secondTurns = machine.judged.calls - 6;
    EXPECT_LE(secondTurns, 3);
    EXPECT_EQ(record.at("reward_mean").is_double(), true);
  }
  {
    PartlyBrokenMachine machine;
    machine.everything = true;
    GrpoTrainer trainer(config, machine);
    try {
      trainer.step();
      ADD_FAILURE() << "a step with no judged group must stop the run";
    } catch (const std::runtime_error &error) {
      EXPECT_NE(std::string(error.what()).find("could not judge any group"), std::string::npos) << error.what();
    }
  }
  {
    PartlyBrokenMachine machine;
    machine.silent = true;
    GrpoTrainer trainer(config, machine);
    EXPECT_THROW(trainer.step(), std::runtime_error); // no daemon: the machine's, the run stops
  }
  fs::remove_all(model);
  fs::remove_all(out);
}

TEST(GrpoConfigTest, UnknownKeysAndBadValuesAreErrors) {
  EXPECT_THROW(GrpoConfig::fromJsonText(R"({"model":"m","learning_rat":1e-5})", "c.json"), std::invalid_argument);
  EXPECT_THROW(GrpoConfig::fromJsonText(R"({"model":"m","group":"four"})", "c.json"), std::invalid_argument);
  EXPECT_THROW(GrpoConfig::fromJsonText(R"({"model":"m","temperature":0})", "c.json"), std::invalid_argument);
  EXPECT_THROW(GrpoConfig::fromJsonText(R"({"group":4})", "c.json"), std::invalid_argument);
  const auto c = GrpoConfig::fromJsonText(R"({"model":"m","group":8,"daemon_urls":["http://a:1","http://b:2"]})", "c");
  EXPECT_EQ(c.group, 8);
  EXPECT_EQ(c.daemonUrls.size(), 2u);
  EXPECT_EQ(GrpoConfig::fromJsonText(c.toJsonText(), "again").daemonUrls, c.daemonUrls);
}

TEST(AdamWTest, Bf16WeightsMoveThroughTheirF32Master) {
  // A steady gradient at lr 1e-6: each update is ~1e-6, far below bf16's
  // step near 0.02 (~1.2e-4); only an f32 master accumulates them.
  auto p = torch::full({1}, 0.02, torch::kBFloat16).requires_grad_(true);
  const float start = p.to(torch::kFloat32).item<float>();
  AdamW optimizer({p}, AdamWOptions{});
  for (int i = 0; i < 300; ++i) {
    optimizer.zeroGrad();
    (p.to(torch::kFloat32) * 1.0f).sum().backward();
    optimizer.step(1e-6);
  }
  EXPECT_LT(p.to(torch::kFloat32).item<float>(), start);
  const auto state = optimizer.state();
  ASSERT_TRUE(state.count("w.0"));
  EXPECT_NEAR(state.at("w.0").item<float>(), start - 300e-6, 2e-6);
}

TEST(AdamWTest, OneStepByHandAndTheSchedule) {
  auto p = torch::tensor({1.0f, -2.0f}).requires_grad_(true);
  AdamW optimizer({p}, AdamWOptions{0.9, 0.999, 1e-8, 0.1});
  (p * torch::tensor({3.0f, -4.0f})).sum().backward(); // gradient [3, -4]
  optimizer.step(0.01);
  // Step 1: m_hat = g, v_hat = g^2: the update is sign(g) (up to eps); decay 1 - lr * wd.
  EXPECT_NEAR(p[0].item<double>(), 1.0 * (1 - 0.001) - 0.01, 1e-6);
  EXPECT_NEAR(p[1].item<double>(), -2.0 * (1 - 0.001) + 0.01, 1e-6);
  EXPECT_NEAR(warmupCosine(0, 1.0, 4, 10), 0.25, 1e-12);
  EXPECT_NEAR(warmupCosine(4, 1.0, 4, 10), 1.0, 1e-12);
  EXPECT_NEAR(warmupCosine(10, 1.0, 4, 10, 0.1), 0.1, 1e-12);
  EXPECT_NEAR(warmupCosine(7, 1.0, 4, 10, 0.0), 0.5, 1e-12);
  auto q = torch::tensor({3.0f, 4.0f}).requires_grad_(true);
  (q * q).sum().backward(); // gradient [6, 8], norm 10
  EXPECT_NEAR(clipGradientNorm({q}, 5.0), 10.0, 1e-5);
  EXPECT_NEAR(q.grad().norm().item<double>(), 5.0, 1e-3);
}
