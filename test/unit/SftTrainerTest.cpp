// The supervised warm start on a tiny random policy: the loss on completion
// tokens falls as it learns three pairs, only completion tokens count, and an
// interrupted run resumed from its checkpoint gives the uninterrupted losses.
#include "cudaperf/trainer/SftTrainer.h"

#include "ByteTokenizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace cudaperf::trainer;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path folder(const std::string &name) {
  auto dir = fs::temp_directory_path() / ("cudaperf-sft-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

SftConfig tinyRun(const std::string &name, const fs::path &out) {
  const fs::path model = folder(name + "-model");
  ModelConfig c;
  c.family = ModelFamily::Llama;
  c.vocabSize = 258;
  c.hiddenSize = 32;
  c.intermediateSize = 64;
  c.layers = 2;
  c.heads = 4;
  c.kvHeads = 2;
  c.headDim = 8;
  c.maxPositions = 512;
  c.eosTokenIds = {257};
  PolicyModel::random(c, torch::kCPU, torch::kFloat32, 7).save(model.string());
  std::ofstream(model / "tokenizer.json") << byteTokenizerJson(true);
  std::ofstream(model / "data.jsonl") << R"({"prompt": "add", "completion": "c[i] = a[i] + b[i];"})"
                                         "\n"
                                      << R"({"prompt": "relu", "completion": "y[i] = fmaxf(x[i], 0.f);"})"
                                         "\n\n"
                                      << R"({"prompt": "scale", "completion": "x[i] *= s;"})"
                                         "\n";
  SftConfig config;
  config.model = model.string();
  config.data = (model / "data.jsonl").string();
  config.outDir = out.string();
  config.epochs = 60;
  config.batch = 3;
  config.microBatch = 2;
  config.learningRate = 1e-2;
  config.checkpointEvery = 5;
  return config;
}

std::vector<double> losses(const fs::path &out) {
  std::vector<double> values;
  std::ifstream in(out / "log.jsonl");
  for (std::string line; std::getline(in, line);)
    values.push_back(json::parse(line).as_object().at("loss").as_double());
  return values;
}

TEST(SftTrainerTest, TheCompletionLossFallsAsItLearns) {
  const fs::path out = folder("learn-out");
  SftConfig config = tinyRun("learn", out);
  SftTrainer trainer(config);
  EXPECT_EQ(trainer.totalSteps(), 60);
  std::ostringstream quiet;
  trainer.run(quiet);
  const auto values = losses(out);
  ASSERT_EQ(values.size(), 60u);
  EXPECT_LT(values.back(), 0.5 * values.front()) << values.front() << " -> " << values.back();
  EXPECT_TRUE(fs::exists(out / "step-60" / "optimizer.safetensors"));
  fs::remove_all(out);
  fs::remove_all(config.model);
}

TEST(SftTrainerTest, AResumedRunGivesTheUninterruptedLosses) {
  const fs::path whole = folder("whole"), parts = folder("parts");
  SftConfig a = tinyRun("resume-a", whole), b = tinyRun("resume-b", parts);
  a.epochs = b.epochs = 4; // 4 steps
  a.checkpointEvery = b.checkpointEvery = 1;
  std::ostringstream quiet;
  SftTrainer(a).run(quiet);
  SftTrainer(b).run(quiet, 2); // interrupted after two of four
  b.resume = "latest";
  SftTrainer resumed(b);
  EXPECT_EQ(resumed.stepsDone(), 2);
  resumed.run(quiet);
  EXPECT_EQ(losses(whole), losses(parts));
  EXPECT_EQ(losses(parts).size(), 4u);
  for (const auto &dir : {whole, parts, fs::path(a.model), fs::path(b.model)})
    fs::remove_all(dir);
}

TEST(SftTrainerTest, ATimeLimitStopsAfterTheStepThatReachesItWithACheckpoint) {
  const fs::path out = folder("seconds");
  SftConfig config = tinyRun("seconds", out);
  config.epochs = 4;
  config.checkpointEvery = 0; // no checkpoint of its own: the stop still leaves one
  std::ostringstream quiet;
  SftTrainer(config).run(quiet, 0, 1e-9); // any step takes longer than a nanosecond
  EXPECT_EQ(losses(out).size(), 1u);
  EXPECT_TRUE(fs::exists(out / "step-1" / "optimizer.safetensors"));
  EXPECT_NE(quiet.str().find("stopping after step 1"), std::string::npos) << quiet.str();
  config.resume = "latest";
  SftTrainer resumed(config);
  EXPECT_EQ(resumed.stepsDone(), 1);
  resumed.run(quiet, 0, 3600); // a limit it does not reach: the run ends at its last step
  EXPECT_EQ(losses(out).size(), 4u);
  fs::remove_all(out);
  fs::remove_all(config.model);
}

TEST(SftTrainerTest, LoraLearnsAndResumesExactly) {
  const fs::path whole = folder("lora-whole"), parts = folder("lora-parts");
  SftConfig a = tinyRun("lora-a", whole), b = tinyRun("lora-b", parts);
  for (SftConfig *c : {&a, &b}) {
    c->epochs = 40;
    c->loraRank = 8;
    c->learningRate = 3e-2;
    c->checkpointEvery = 5;
  }
  std::ostringstream quiet;
  SftTrainer(a).run(quiet);
  SftTrainer(b).run(quiet, 20);
  b.resume = "latest";
  SftTrainer(b).run(quiet);
  const auto values = losses(whole);
  ASSERT_EQ(values.size(), 40u);
  // Only the adapters learn: the random embeddings (std 0.02, width 32) stay and
  // bound the logits to about |h| |e| = 0.64, so the loss cannot fall far below
  // uniform's ln 258 = 5.55; it must still fall.
  EXPECT_LT(values.back(), values.front() - 0.15) << values.front() << " -> " << values.back();
  EXPECT_EQ(losses(parts), values);
  EXPECT_TRUE(fs::exists(parts / "step-40" / "lora.safetensors"));
  for (const auto &dir : {whole, parts, fs::path(a.model), fs::path(b.model)})
    fs::remove_all(dir);
}

TEST(SftTrainerTest, BadDataNamesTheLine) {
  const fs::path out = folder("bad-out");
  SftConfig config = tinyRun("bad", out);
  std::ofstream(config.data, std::ios::trunc) << R"({"prompt": "x", "completion": "y"})"
                                                 "\n"
                                              << R"({"prompt": 3})"
                                                 "\n";
  try {
    SftTrainer trainer(config);
    FAIL() << "a line without strings must be refused";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("data.jsonl:2"), std::string::npos) << error.what();
  }
  EXPECT_THROW(SftConfig::fromJsonText(R"({"model": "m"})", "sft.json"), std::invalid_argument);
  fs::remove_all(out);
  fs::remove_all(config.model);
}

} // namespace
