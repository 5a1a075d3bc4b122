// A tiny GRPO run for tests: a stand-in scorer of the completion's text, a
// random Qwen2-shaped policy of a few thousand weights saved with its byte
// tokenizer, and the settings of a three-step run. Shared by the trainer's
// tests and the data-parallel rank fixture.
#pragma once

#include "ByteTokenizer.h"

#include "cudaperf/trainer/GrpoTrainer.h"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace tiny_grpo {

using namespace cudaperf::trainer;
namespace fs = std::filesystem;
namespace json = boost::json;

// Scores the text it is given: the number of distinct bytes, folded to [-2, 2];
// "ok" above 0.5. Stands in for the daemon so that two runs can be compared exactly.
class TextScorer : public RewardSource {
public:
  std::vector<RewardAnswer> evaluate(const std::vector<RewardRequest> &requests) override {
    std::vector<RewardAnswer> out;
    for (const auto &request : requests) {
      std::set<char> distinct(request.source.begin(), request.source.end());
      RewardAnswer answer;
      answer.ok = true;
      answer.httpStatus = 200;
      answer.reward = static_cast<double>(distinct.size() % 5) - 2.0;
      answer.status = *answer.reward > 0.5 ? "ok" : "wrong_answer";
      answer.feedback = "Wrong answer: try again.";
      out.push_back(answer);
      ++calls;
    }
    return out;
  }
  int calls = 0;
};

inline fs::path makeModel(const std::string &name) {
  const fs::path dir = fs::temp_directory_path() / ("cudaperf-grpo-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  ModelConfig c;
  c.family = ModelFamily::Qwen2;
  c.vocabSize = 258;
  c.hiddenSize = 32;
  c.intermediateSize = 48;
  c.layers = 2;
  c.heads = 4;
  c.kvHeads = 2;
  c.headDim = 8;
  c.maxPositions = 4096;
  c.tieEmbeddings = true;
  c.qkvBias = true;
  c.eosTokenIds = {257};
  PolicyModel::random(c, torch::kCPU, torch::kFloat32, 3).save(dir.string());
  std::ofstream(dir / "tokenizer.json") << byteTokenizerJson(true);
  return dir;
}

inline GrpoConfig tinyConfig(const fs::path &model, const fs::path &out) {
  GrpoConfig c;
  c.model = model.string();
  c.tasksDir = CUDAPERF_TASKS_DIR;
  c.tasks = {"relu", "vector_add", "saxpy"};
  c.outDir = out.string();
  c.promptsPerStep = 2;
  c.group = 3;
  c.maxNewTokens = 12;
  c.learningRate = 1e-2;
  c.microBatch = 2;
  c.updatesPerBatch = 2;
  c.steps = 3;
  c.checkpointEvery = 1;
  c.seed = 5;
  return c;
}

inline std::vector<json::object> readLog(const fs::path &out) {
  std::vector<json::object> records;
  std::ifstream in(out / "log.jsonl");
  for (std::string line; std::getline(in, line);)
    records.push_back(json::parse(line).as_object());
  return records;
}

} // namespace tiny_grpo
