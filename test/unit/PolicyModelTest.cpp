// The policy model and sampler on tiny random models this test makes and
// saves with our writer: save/load, KV cache against no cache, batched with
// padding against one by one, seeded sampling, the sampling distribution on
// hand-made logits, sampler log-probs against the trainer's recomputation,
// stops, loader errors and the command line.
#include "cudaperf/trainer/PolicyModel.h"
#include "cudaperf/trainer/Safetensors.h"
#include "cudaperf/trainer/Sampler.h"
#include "cudaperf/trainer/Tokenizer.h"

#include "ByteTokenizer.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace cudaperf::trainer;
namespace fs = std::filesystem;

namespace {

ModelConfig tinyConfig(ModelFamily family, bool tied) {
  ModelConfig c;
  c.family = family;
  c.vocabSize = 300;
  c.hiddenSize = 32;
  c.intermediateSize = 48;
  c.layers = 2;
  c.heads = 4;
  c.kvHeads = 2;
  c.headDim = 8;
  c.maxPositions = 256;
  c.ropeTheta = 10000;
  c.tieEmbeddings = tied;
  c.qkvBias = family == ModelFamily::Qwen2;
  c.qkNorm = family == ModelFamily::Qwen3;
  c.eosTokenIds = {299};
  return c;
}

struct Family {
  const char *name;
  ModelFamily family;
  bool tied;
};
const Family kFamilies[] = {
    {"llama", ModelFamily::Llama, false}, {"qwen2", ModelFamily::Qwen2, true}, {"qwen3", ModelFamily::Qwen3, false}};

fs::path scratch(const std::string &name) {
  auto dir = fs::temp_directory_path() / ("cudaperf-policy-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

torch::Tensor ids(std::vector<std::vector<std::int64_t>> rows, torch::Tensor *firstSlot) {
  std::int64_t longest = 0;
  for (auto &r : rows)
    longest = std::max<std::int64_t>(longest, r.size());
  auto out = torch::zeros({static_cast<std::int64_t>(rows.size()), longest}, torch::kInt64);
  std::vector<std::int64_t> first;
  for (std::size_t b = 0; b < rows.size(); ++b) {
    first.push_back(longest - static_cast<std::int64_t>(rows[b].size()));
    for (std::size_t j = 0; j < rows[b].size(); ++j)
      out[b][first.back() + static_cast<std::int64_t>(j)] = rows[b][j];
  }
  *firstSlot = torch::tensor(first, torch::kInt64);
  return out;
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double maxDifference(const torch::Tensor &a, const torch::Tensor &b) { return (a - b).abs().max().item<double>(); }

TEST(PolicyModelTest, SaveAndLoadGiveTheSameLogits) {
  for (const auto &f : kFamilies) {
    const auto model = PolicyModel::random(tinyConfig(f.family, f.tied), torch::kCPU, torch::kFloat32, 1);
    const auto dir = scratch(std::string("save-") + f.name);
    model.save(dir.string());
    const auto loaded = PolicyModel::load(dir.string(), torch::kCPU, torch::kFloat32);
    EXPECT_EQ(loaded.parameterCount(), model.parameterCount()) << f.name;
    torch::Tensor first;
    auto batch = ids({{5, 6, 7, 8}}, &first);
    EXPECT_EQ(maxDifference(model.forward(batch, first), loaded.forward(batch, first)), 0.0) << f.name;
    fs::remove_all(dir);
  }
}

TEST(PolicyModelTest, ShardedSaveKeepsEachFileUnderItsLimitAndLoadsTheSame) {
  const auto model = PolicyModel::random(tinyConfig(ModelFamily::Qwen2, true), torch::kCPU, torch::kFloat32, 4);
  const auto dir = scratch("sharded");
  model.save(dir.string()); // one file first: the sharded save must replace it, not sit beside it
  std::size_t total = 0;
  for (const auto &p : model.parameters())
    total += static_cast<std::size_t>(p.numel()) * 4;
  const std::size_t limit = total / 3 + 1; // three shards or more
  model.save(dir.string(), limit);
  EXPECT_FALSE(fs::exists(dir / "model.safetensors"));
  const auto index = boost::json::parse(readFile(dir / "model.safetensors.index.json")).as_object();
  std::set<std::string> shards;
  for (const auto &[tensor, shard] : index.at("weight_map").as_object())
    shards.insert(std::string(shard.as_string()));
  EXPECT_GE(shards.size(), 3u);
  std::size_t data = 0;
  for (const auto &shard : shards) {
    const auto file = cudaperf::trainer::SafetensorsFile::open((dir / shard).string());
    std::size_t bytes = 0;
    for (const auto &[name, view] : file->tensors())
      bytes += view.bytes;
    // Within the limit, or one tensor that alone is larger (the tiny model's embedding: 38,400 bytes).
    EXPECT_TRUE(bytes <= limit || file->tensors().size() == 1) << shard << ": " << bytes;
    data += bytes;
  }
  EXPECT_EQ(data, total);
  EXPECT_EQ(index.at("metadata").as_object().at("total_size").to_number<std::size_t>(), total);
  const auto loaded = PolicyModel::load(dir.string(), torch::kCPU, torch::kFloat32);
  torch::Tensor first;
  auto batch = ids({{5, 6, 7, 8}}, &first);
  EXPECT_EQ(maxDifference(model.forward(batch, first), loaded.forward(batch, first)), 0.0);
  // And back to one file: the shards and the index go.
  model.save(dir.string());
  EXPECT_FALSE(fs::exists(dir / "model.safetensors.index.json"));
  for (const auto &shard : shards)
    EXPECT_FALSE(fs::exists(dir / shard)) << shard;
  fs::remove_all(dir);
}

TEST(PolicyModelTest, CachedDecodeEqualsTheFullForward) {
  torch::NoGradGuard noGrad;
  for (const auto &f : kFamilies) {
    const auto model = PolicyModel::random(tinyConfig(f.family, f.tied), torch::kCPU, torch::kFloat32, 2);
    torch::Tensor first;
    // Two rows of different lengths: row 1 left-padded by 3.
    auto full = ids({{11, 12, 13, 14, 15, 16, 17, 18}, {21, 22, 23, 24, 25}}, &first);
    const auto reference = model.forward(full, first);
    const std::int64_t prompt = 4;
    // Both paths: on the CPU (f32) the fused kernels never apply, Fastest is ATen.
    EXPECT_FALSE(model.fusedDecodeFits(2)) << f.name;
    for (auto path : {PolicyModel::DecodePath::Fastest, PolicyModel::DecodePath::ATen}) {
      auto cache = model.makeCache(2, 16);
      auto logits = model.prefill(full.narrow(1, 0, prompt), first, cache);
      EXPECT_LT(maxDifference(logits, reference.select(1, prompt - 1)), 1e-5) << f.name;
      for (std::int64_t column = prompt; column < full.size(1); ++column) {
        auto slot = torch::full({1}, column, torch::kInt64);
        logits = model.decode(full.select(1, column).contiguous(), slot, first, cache, path);
        EXPECT_LT(maxDifference(logits, reference.select(1, column)), 1e-5) << f.name << " column " << column;
      }
    }
    // Nothing to compare where there is no fused step: reported as such, no steps run.
    const auto paths = compareDecodePaths(model, {{1, 2, 3}, {4}}, 2, 4, 0);
    EXPECT_FALSE(paths.fused);
    EXPECT_EQ(paths.steps, 0);
  }
}

TEST(PolicyModelTest, BatchedWithPaddingEqualsOneByOne) {
  torch::NoGradGuard noGrad;
  for (const auto &f : kFamilies) {
    const auto model = PolicyModel::random(tinyConfig(f.family, f.tied), torch::kCPU, torch::kFloat32, 3);
    const std::vector<std::vector<std::int64_t>> rows{{1, 2, 3}, {4, 5, 6, 7, 8, 9, 10}, {42}};
    torch::Tensor first;
    const auto batched = model.forward(ids(rows, &first), first);
    for (std::size_t b = 0; b < rows.size(); ++b) {
      torch::Tensor alone;
      const auto single = model.forward(ids({rows[b]}, &alone), alone);
      const auto pad = first[b].item<std::int64_t>();
      EXPECT_LT(maxDifference(batched[b].narrow(0, pad, rows[b].size()), single[0]), 1e-5) << f.name << " row " << b;
    }
  }
}

TEST(PolicyModelTest, LoraStartsAsTheBaseAndMergesIntoPlainWeights) {
  torch::NoGradGuard noGrad;
  for (const auto &f : kFamilies) {
    auto model = PolicyModel::random(tinyConfig(f.family, f.tied), torch::kCPU, torch::kFloat32, 8);
    torch::Tensor first;
    auto batch = ids({{3, 1, 4}, {1, 5, 9, 2, 6}}, &first);
    const auto base = model.forward(batch, first);
    model.addLora(4, 8.0, 1);
    EXPECT_EQ(maxDifference(model.forward(batch, first), base), 0.0) << f.name; // B = 0
    for (auto &t : model.loraParameters())
      t.copy_(torch::randn(t.sizes()) * 0.1); // as after training
    const auto adapted = model.forward(batch, first);
    EXPECT_GT(maxDifference(adapted, base), 1e-3) << f.name;
    // save(): merged weights, a plain folder that loads without LoRA.
    const auto dir = scratch(std::string("lora-") + f.name);
    model.save(dir.string());
    const auto merged = PolicyModel::load(dir.string(), torch::kCPU, torch::kFloat32);
    EXPECT_FALSE(merged.hasLora());
    EXPECT_LT(maxDifference(merged.forward(batch, first), adapted), 1e-4) << f.name;
    // The adapters alone, on a fresh copy of the base.
    model.saveLora((dir / "lora.safetensors").string());
    auto again = PolicyModel::random(tinyConfig(f.family, f.tied), torch::kCPU, torch::kFloat32, 8);
    again.addLora(4, 8.0, 99);
    again.loadLora((dir / "lora.safetensors").string());
    EXPECT_EQ(maxDifference(again.forward(batch, first), adapted), 0.0) << f.name;
    auto other = PolicyModel::random(tinyConfig(f.family, f.tied), torch::kCPU, torch::kFloat32, 8);
    other.addLora(2, 8.0, 1); // another rank: refused, naming the tensor
    EXPECT_THROW(other.loadLora((dir / "lora.safetensors").string()), std::runtime_error);
    fs::remove_all(dir);
  }
}

// ------------------------------------------------------------ distribution

TEST(SamplingTest, TopPTopKAndTemperatureOnHandMadeLogits) {
  const auto logits = torch::log(torch::tensor({0.5, 0.3, 0.15, 0.05}, torch::kFloat32)).unsqueeze(0);
  auto probabilities = [&](SamplingOptions o) { return samplingLogProbs(logits, o).exp()[0]; };
  SamplingOptions o;
  o.topP = 0.7; // 0.5 (before 0) and 0.3 (before 0.5) kept; 0.15 has 0.8 before it
  auto p = probabilities(o);
  EXPECT_NEAR(p[0].item<double>(), 0.625, 1e-6);
  EXPECT_NEAR(p[1].item<double>(), 0.375, 1e-6);
  EXPECT_EQ(p[2].item<double>(), 0.0);
  o.topP = 0.5; // the mass before 0.3 is exactly 0.5: removed
  EXPECT_NEAR(probabilities(o)[0].item<double>(), 1.0, 1e-6);
  o = {};
  o.topK = 3;
  p = probabilities(o);
  EXPECT_NEAR(p[2].item<double>(), 0.15 / 0.95, 1e-6);
  EXPECT_EQ(p[3].item<double>(), 0.0);
  o = {};
  o.temperature = 2; // p ∝ sqrt(p)
  p = probabilities(o);
  const double norm = std::sqrt(0.5) + std::sqrt(0.3) + std::sqrt(0.15) + std::sqrt(0.05);
  EXPECT_NEAR(p[3].item<double>(), std::sqrt(0.05) / norm, 1e-6);
  o.topK = 2;
  o.topP = 0.5; // top-k first (0.5, 0.3 at T=2: 0.5635, 0.4365), then top-p keeps the first only
  EXPECT_NEAR(probabilities(o)[0].item<double>(), 1.0, 1e-6);
  o = {};
  o.temperature = 0;
  EXPECT_THROW(samplingLogProbs(logits, o), std::invalid_argument);
}

// The draw against a plain double-precision walk along the ids: the first id
// whose running mass reaches u * total.
TEST(SamplingTest, InverseCdfDrawIsTheFirstIdWhoseMassReachesTheTarget) {
  torch::manual_seed(11);
  const std::int64_t rows = 48, V = 1000; // 8 blocks of 128, the last one partial
  SamplingOptions o;
  o.topP = 0.9; // removed ids inside every block
  auto logProbs = samplingLogProbs(torch::randn({rows, V}) * 3, o);
  auto uniforms = torch::rand({rows}) * (1 - 2e-7) + 1e-7;
  uniforms[0] = 1e-7;     // the very bottom: the first id with mass
  uniforms[1] = 1 - 1e-7; // the very top: the last id with mass, never a removed one
  auto drawn = inverseCdfDraw(logProbs, uniforms);
  ASSERT_EQ(drawn.sizes(), (std::vector<std::int64_t>{rows}));
  auto p = logProbs.to(torch::kFloat64).exp();
  for (std::int64_t r = 0; r < rows; ++r) {
    const double total = p[r].sum().item<double>(), target = uniforms[r].item<double>() * total;
    double mass = 0;
    std::int64_t expected = -1, lastWithMass = -1;
    for (std::int64_t i = 0; i < V; ++i) {
      const double pi = p[r][i].item<double>();
      if (pi > 0)
        lastWithMass = i;
      mass += pi;
      if (expected < 0 && pi > 0 && mass >= target)
        expected = i;
    }
    if (expected < 0)
      expected = lastWithMass;
    EXPECT_EQ(drawn[r].item<std::int64_t>(), expected) << "row " << r << ", u " << uniforms[r].item<double>();
    EXPECT_TRUE(std::isfinite(logProbs[r][drawn[r]].item<double>())) << "row " << r;
  }
}

TEST(SamplingTest, InverseCdfDrawOnAHandMadeDistribution) {
  // Mass 0.25 at id 5, 0.25 at id 200, 0.5 at id 299 (the last, in a partial block); nothing elsewhere.
  auto logProbs = torch::full({4, 300}, -std::numeric_limits<float>::infinity());
  for (std::int64_t r = 0; r < 4; ++r) {
    logProbs[r][5] = std::log(0.25);
    logProbs[r][200] = std::log(0.25);
    logProbs[r][299] = std::log(0.5);
  }
  auto drawn = inverseCdfDraw(logProbs, torch::tensor({0.1f, 0.3f, 0.49f, 0.9f}));
  EXPECT_EQ(drawn[0].item<std::int64_t>(), 5);
  EXPECT_EQ(drawn[1].item<std::int64_t>(), 200);
  EXPECT_EQ(drawn[2].item<std::int64_t>(), 200);
  EXPECT_EQ(drawn[3].item<std::int64_t>(), 299);
}

// The fused draw runs on CUDA f32 logits only: on CPU logits, or with top-p
// on, the comparison reports that it did not run and compares nothing.
TEST(SamplingTest, TheFusedDrawIsNotClaimedWhereItCannotRun) {
  auto logits = torch::randn({4, 256});
  SamplingOptions o;
  auto cpu = compareDrawPaths(logits, o, 3, 1);
  EXPECT_FALSE(cpu.fused);
  EXPECT_EQ(cpu.draws, 0);
  EXPECT_EQ(cpu.sameTokens, 0);
  o.topP = 0.9;
  EXPECT_FALSE(compareDrawPaths(logits, o, 3, 1).fused);
}

// ------------------------------------------------------------------ sampler

class SamplerTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    model_ =
        new PolicyModel(PolicyModel::random(tinyConfig(ModelFamily::Qwen2, true), torch::kCPU, torch::kFloat32, 4));
  }
  static void TearDownTestSuite() { delete model_; }
  static PolicyModel *model_;
};
PolicyModel *SamplerTest::model_ = nullptr;

// The bookkeeping kernel (StepRecordKernel.h) runs on CUDA only: on the CPU
// the sampler says it did not, and its comparison compares nothing.
TEST_F(SamplerTest, TheStepBookkeepingKernelIsNotClaimedOnTheCpu) {
  const Sampler sampler(*model_);
  SamplingOptions o;
  o.maxNewTokens = 6;
  o.stopIds = {3, 5};
  const std::vector<std::vector<std::int64_t>> prompts{{1, 2, 3}, {9, 8}};
  const auto result = sampler.generate(prompts, 2, o);
  EXPECT_FALSE(result.usedFusedSampling);
  const auto records = compareRecordPaths(sampler, prompts, 2, o);
  EXPECT_FALSE(records.fused);
  EXPECT_EQ(records.completions, 0);
}

// bitEqualRows, which the GPU check of the bookkeeping kernel counts with:
// every written column (past a row's stop id too), log-probs as bits.
TEST_F(SamplerTest, BitEqualRowsSeesPaddingAndTheSignOfZero) {
  const Sampler sampler(*model_);
  SamplingOptions o;
  o.maxNewTokens = 8;
  o.seed = 3;
  const std::vector<std::vector<std::int64_t>> prompts{{4, 5}, {6}};
  const auto a = sampler.generate(prompts, 2, o);
  auto b = sampler.generate(prompts, 2, o);
  ASSERT_EQ(a.generatedIds.sizes(), (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(bitEqualRows(a, b), 4);
  b.generatedIds[1][7] = b.generatedIds[1][7].item<std::int64_t>() + 1; // past any stop: still a difference
  EXPECT_EQ(bitEqualRows(a, b), 3);
  auto c = a;
  c.generatedIds = a.generatedIds.clone();
  c.generatedLogProbs = a.generatedLogProbs.clone();
  c.generatedLogProbs[2][0] = 0.0f;
  auto d = c;
  d.generatedLogProbs = c.generatedLogProbs.clone();
  d.generatedLogProbs[2][0] = -0.0f; // equal as floats, not as bits
  EXPECT_EQ(bitEqualRows(c, d), 3);
  d.generatedLogProbs[2][0] = std::numeric_limits<float>::quiet_NaN();
  c.generatedLogProbs[2][0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(bitEqualRows(c, d), 4); // the same NaN bits are the same record
  d.completions[3].finish = "stop_id";
  EXPECT_EQ(bitEqualRows(c, d), 3);
  o.maxNewTokens = 6;
  EXPECT_EQ(bitEqualRows(a, sampler.generate(prompts, 2, o)), 0); // other steps: nothing compares
}

TEST_F(SamplerTest, SameSeedSameCompletionsOtherSeedOthers) {
  const Sampler sampler(*model_);
  SamplingOptions o;
  o.maxNewTokens = 24;
  o.seed = 7;
  const std::vector<std::vector<std::int64_t>> prompts{{1, 2, 3}, {9, 8}};
  const auto a = sampler.generate(prompts, 3, o), b = sampler.generate(prompts, 3, o);
  ASSERT_EQ(a.completions.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.completions[i].ids, b.completions[i].ids);
    EXPECT_EQ(a.completions[i].logProbs, b.completions[i].logProbs);
  }
  // The completions of one group differ from each other (a random model is near uniform over 300 ids).
  EXPECT_NE(a.completions[0].ids, a.completions[1].ids);
  o.seed = 8;
  EXPECT_NE(sampler.generate(prompts, 3, o).completions[0].ids, a.completions[0].ids);
}

// With a seed per row, a row's completion depends on its seed alone: the
// same sampled in a batch of three or alone with a shorter prompt beside it
// (how a data-parallel GRPO rank samples what one process would).
TEST_F(SamplerTest, ARowSeedGivesTheSameCompletionInAnyBatch) {
  const Sampler sampler(*model_);
  SamplingOptions o;
  o.maxNewTokens = 16;
  o.rowSeeds = {11, 12, 13};
  const auto batch = sampler.generate({{1, 2, 3}, {9, 8}, {7, 7, 7, 7}}, 1, o);
  o.rowSeeds = {12};
  const auto alone = sampler.generate({{9, 8}}, 1, o);
  EXPECT_EQ(alone.completions[0].ids, batch.completions[1].ids);
  ASSERT_EQ(alone.completions[0].logProbs.size(), batch.completions[1].logProbs.size());
  for (std::size_t i = 0; i < alone.completions[0].logProbs.size(); ++i)
    EXPECT_NEAR(alone.completions[0].logProbs[i], batch.completions[1].logProbs[i], 1e-5); // other padding
  o.rowSeeds = {13, 11};
  const auto swapped = sampler.generate({{7, 7, 7, 7}, {1, 2, 3}}, 1, o);
  EXPECT_EQ(swapped.completions[0].ids, batch.completions[2].ids);
  EXPECT_EQ(swapped.completions[1].ids, batch.completions[0].ids);
  o.rowSeeds = {1, 2}; // one seed a row, or none
  EXPECT_THROW(sampler.generate({{1}}, 1, o), std::invalid_argument);
}

// Rows beyond one chunk (and of other lengths) go through several generates; with row seeds each
// completion is the one a single generate over every row gives, in the prompts' order.
TEST_F(SamplerTest, ChunkedGenerationGivesTheOneBatchCompletionsInOrder) {
  const Sampler sampler(*model_);
  SamplingOptions o;
  o.maxNewTokens = 6;
  std::vector<std::vector<std::int64_t>> prompts;
  for (std::int64_t i = 0; i < Sampler::kMaxRowsPerChunk + 6; ++i) {
    prompts.push_back(std::vector<std::int64_t>(1 + i % 5, 3 + i % 7));
    o.rowSeeds.push_back(100 + static_cast<std::uint64_t>(i));
  }
  const auto whole = sampler.generate(prompts, 1, o);
  const auto chunked = sampler.generateInChunks(prompts, o);
  ASSERT_EQ(chunked.completions.size(), prompts.size());
  for (std::size_t i = 0; i < prompts.size(); ++i)
    EXPECT_EQ(chunked.completions[i].ids, whole.completions[i].ids) << "row " << i;
  o.rowSeeds.pop_back(); // one seed a row, or none
  EXPECT_THROW(sampler.generateInChunks(prompts, o), std::invalid_argument);
}

// A chunk's rows: as many as the fused step takes for short prompts, fewer as the prefill's
// rows x heads x T x T attention scores grow, never none.
TEST_F(SamplerTest, RowsPerChunkKeepThePrefillScoresUnderTheBudget) {
  const Sampler sampler(*model_);
  const std::int64_t heads = model_->config().heads;
  EXPECT_EQ(sampler.rowsPerChunk(1), Sampler::kMaxRowsPerChunk);
  EXPECT_EQ(sampler.rowsPerChunk(1 << 20), 1);
  for (std::int64_t longest : {512, 2048, 4096, 8192}) {
    const std::int64_t rows = sampler.rowsPerChunk(longest);
    EXPECT_GE(rows, 1);
    EXPECT_LE(rows, Sampler::kMaxRowsPerChunk);
    if (rows > 1)
      EXPECT_LE(rows * heads * longest * longest, Sampler::kPrefillScoreBudget) << longest;
    if (rows < Sampler::kMaxRowsPerChunk)
      EXPECT_GT((rows + 1) * heads * longest * longest, Sampler::kPrefillScoreBudget) << longest;
  }
}

TEST_F(SamplerTest, SamplerLogProbsEqualTheTrainersRecomputation) {
  const Sampler sampler(*model_);
  for (auto [temperature, topP, topK] : {std::tuple{1.0, 1.0, 0}, {0.7, 0.9, 0}, {1.3, 1.0, 20}}) {
    SamplingOptions o;
    o.temperature = temperature;
    o.topP = topP;
    o.topK = topK;
    o.maxNewTokens = 20;
    o.seed = 11;
    const std::vector<std::vector<std::int64_t>> prompts{{5, 6, 7, 8, 9}, {10, 11}};
    const auto result = sampler.generate(prompts, 2, o);
    std::vector<std::vector<std::int64_t>> rowPrompts, rowCompletions;
    for (std::size_t i = 0; i < result.completions.size(); ++i) {
      rowPrompts.push_back(prompts[i / 2]);
      rowCompletions.push_back(result.completions[i].ids);
    }
    const auto recomputed = completionLogProbs(*model_, rowPrompts, rowCompletions, o, 3);
    for (std::size_t i = 0; i < recomputed.size(); ++i) {
      ASSERT_EQ(recomputed[i].size(), result.completions[i].logProbs.size());
      for (std::size_t j = 0; j < recomputed[i].size(); ++j) {
        EXPECT_TRUE(std::isfinite(result.completions[i].logProbs[j]));
        EXPECT_NEAR(recomputed[i][j], result.completions[i].logProbs[j], 1e-4)
            << "T " << temperature << " top-p " << topP << " top-k " << topK << " row " << i << " token " << j;
      }
    }
  }
}

TEST_F(SamplerTest, GreedyIsArgmaxAndStopsAtTheStopId) {
  const Sampler sampler(*model_);
  SamplingOptions o;
  o.temperature = 0;
  o.maxNewTokens = 12;
  const std::vector<std::int64_t> prompt{3, 1, 4, 1, 5};
  const auto free = sampler.generate({prompt}, 2, o);
  EXPECT_EQ(free.completions[0].ids, free.completions[1].ids);
  EXPECT_EQ(free.completions[0].ids.size(), 12u);
  EXPECT_EQ(free.completions[0].finish, "length");
  // Each greedy token is the argmax of the full forward's logits.
  std::vector<std::int64_t> sequence = prompt;
  for (auto id : free.completions[0].ids) {
    torch::Tensor first;
    auto logits = model_->forward(ids({sequence}, &first), first);
    EXPECT_EQ(logits[0][-1].argmax().item<std::int64_t>(), id);
    sequence.push_back(id);
  }
  // Stop at the first occurrence of the fourth token.
  o.stopIds = {free.completions[0].ids[3]};
  const auto stopped = sampler.generate({prompt}, 1, o);
  const auto &c = stopped.completions[0];
  EXPECT_EQ(c.finish, "stop_id");
  auto firstHit = std::find(free.completions[0].ids.begin(), free.completions[0].ids.end(), o.stopIds[0]);
  EXPECT_EQ(c.ids, std::vector<std::int64_t>(free.completions[0].ids.begin(), firstHit + 1));
}

Tokenizer byteTokenizer() { return Tokenizer::fromJsonText(byteTokenizerJson(false), "bytes"); }

TEST_F(SamplerTest, StopStringCutsTheTextAndTheTokens) {
  const Tokenizer tokenizer = byteTokenizer();
  const Sampler sampler(*model_, &tokenizer);
  SamplingOptions o;
  o.temperature = 0;
  o.maxNewTokens = 40;
  const auto free = sampler.generate({{72, 105}}, 1, o).completions[0];
  // Take two bytes from the middle of the greedy text as the stop string
  // (ids >= 256 decode to nothing, so look for two consecutive byte ids).
  std::size_t at = 0;
  while (at + 1 < free.ids.size() && !(free.ids[at] < 256 && free.ids[at + 1] < 256 && at >= 3))
    ++at;
  ASSERT_LT(at + 1, free.ids.size()) << "no two byte tokens in a row";
  std::string stop{static_cast<char>(free.ids[at]), static_cast<char>(free.ids[at + 1])};
  o.stopStrings = {stop};
  const auto cut = sampler.generate({{72, 105}}, 1, o).completions[0];
  EXPECT_EQ(cut.finish, "stop_string");
  ASSERT_GE(cut.text.size(), 2u);
  EXPECT_EQ(cut.text.substr(cut.text.size() - 2), stop);
  EXPECT_EQ(cut.text.find(stop), cut.text.size() - 2); // the first occurrence
  EXPECT_LE(cut.ids.size(), at + 2);
  EXPECT_EQ(cut.ids, std::vector<std::int64_t>(free.ids.begin(), free.ids.begin() + cut.ids.size()));
}

// ------------------------------------------------------------------ loading

TEST(PolicyLoaderTest, BrokenFoldersNameTheFileAndTheTensor) {
  const auto config = tinyConfig(ModelFamily::Llama, false);
  const auto model = PolicyModel::random(config, torch::kCPU, torch::kFloat32, 5);
  const auto dir = scratch("broken");
  model.save(dir.string());
  auto errorOf = [&] {
    try {
      PolicyModel::load(dir.string(), torch::kCPU, torch::kFloat32);
    } catch (const std::exception &error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(errorOf(), "");
  // A config that implies another shape.
  ModelConfig wider = config;
  wider.intermediateSize = 64;
  std::ofstream(dir / "config.json", std::ios::trunc) << wider.toJsonText();
  std::string error = errorOf();
  EXPECT_NE(error.find("model.safetensors: tensor 'model.layers.0.mlp.gate_proj.weight' has shape [48, 32]"),
            std::string::npos)
      << error;
  // A missing tensor: the config asks for biases the file does not have.
  ModelConfig biased = config;
  biased.mlpBias = true;
  std::ofstream(dir / "config.json", std::ios::trunc) << biased.toJsonText();
  EXPECT_NE(errorOf().find("missing tensor 'model.layers.0.mlp.gate_proj.bias'"), std::string::npos) << errorOf();
  std::ofstream(dir / "config.json", std::ios::trunc) << config.toJsonText();
  // A truncated weights file.
  const auto weights = dir / "model.safetensors";
  fs::resize_file(weights, fs::file_size(weights) - 100);
  error = errorOf();
  EXPECT_NE(error.find("model.safetensors: tensor '"), std::string::npos) << error;
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  fs::remove(weights);
  EXPECT_NE(errorOf().find("no model.safetensors"), std::string::npos);
  fs::remove(dir / "config.json");
  EXPECT_NE(errorOf().find("config.json: cannot read"), std::string::npos);
  fs::remove_all(dir);
}

// --------------------------------------------------------------- command line

std::string run(const std::string &command, int *status) {
  std::string out;
  FILE *pipe = ::popen((command + " 2>&1").c_str(), "r");
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    out.append(buffer, n);
  *status = WEXITSTATUS(::pclose(pipe));
  return out;
}

TEST(PolicyCommandTest, GenerateTokenizeAndABrokenFolder) {
  const auto dir = scratch("cli");
  PolicyModel::random(tinyConfig(ModelFamily::Qwen3, false), torch::kCPU, torch::kFloat32, 6).save(dir.string());
  std::ofstream(dir / "tokenizer.json") << byteTokenizerJson(false);
  const std::string train = CUDAPERF_TRAIN_BINARY;
  int status = -1;
  std::string out =
      run(train + " generate --model " + dir.string() + " --prompt 'Hi' --max-new-tokens 5 --ids", &status);
  ASSERT_EQ(status, 0) << out;
  const std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
  const auto parsed = boost::json::parse(last).as_object();
  EXPECT_EQ(parsed.at("prompt_ids").as_array().size(), 2u);
  EXPECT_EQ(parsed.at("prompt_ids").as_array()[0].as_int64(), 'H');
  EXPECT_EQ(parsed.at("completion_ids").as_array().size(), 5u);
  // Greedy: the same again.
  EXPECT_EQ(run(train + " generate --model " + dir.string() + " --prompt 'Hi' --max-new-tokens 5 --ids", &status), out);

  out = run("printf '  a\\n' | " + train + " tokenize --model " + dir.string(), &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(out, "[32,32,97,10]\n"); // not trimmed

  // convert: bf16 in shards of at most 0.05 MiB, with the tokenizer; greedy generation still runs.
  const auto converted = dir.parent_path() / "cli-bf16";
  fs::remove_all(converted);
  out = run(train + " convert --model " + dir.string() + " --out " + converted.string() +
                " --dtype bf16 --max-shard-mb 0.05",
            &status);
  ASSERT_EQ(status, 0) << out;
  const auto facts = boost::json::parse(out).as_object();
  EXPECT_GT(facts.at("files").to_number<double>(), 3); // config, tokenizer, index and two or more shards
  EXPECT_TRUE(fs::exists(converted / "tokenizer.json"));
  EXPECT_NE(readFile(converted / "config.json").find("bfloat16"), std::string::npos);
  EXPECT_EQ(
      run(train + " generate --model " + converted.string() + " --prompt 'Hi' --max-new-tokens 3", &status).empty(),
      false);
  EXPECT_EQ(status, 0);
  out = run(train + " convert --model " + dir.string() + " --out " + converted.string(), &status);
  EXPECT_EQ(status, 2); // never over an existing folder
  EXPECT_NE(out.find("exists"), std::string::npos) << out;
  fs::remove_all(converted);

  fs::resize_file(dir / "model.safetensors", 64);
  out = run(train + " generate --model " + dir.string() + " --prompt x", &status);
  EXPECT_EQ(status, 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("model.safetensors"), std::string::npos) << out;
  fs::remove_all(dir);
}

} // namespace
