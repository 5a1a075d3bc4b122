// cudaperf-train sft: the supervised warm start of a policy on (prompt,
// completion) pairs from JSONL ({"prompt": ..., "completion": ...} per line).
// With `chat` (default) the prompt is a ChatML user turn and the completion
// the assistant's, closed by <|im_end|>. The loss is the mean negative
// log-likelihood over completion tokens only (the batch's token count as the
// normaliser, so micro-batching does not change it); AdamW with warm-up +
// cosine and gradient clipping; the same checkpoints and exact resume as grpo.
#pragma once

#include "cudaperf/trainer/AdamW.h"
#include "cudaperf/trainer/PolicyModel.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <boost/json.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace cudaperf::trainer {

struct SftConfig {
  std::string model, data, outDir = "sft-run", device = "cpu", dtype = "f32";
  std::uint64_t seed = 0;
  bool chat = true;
  std::int64_t epochs = 1, batch = 8, microBatch = 2, maxTokens = 4096;
  double learningRate = 1e-5, weightDecay = 0.0, gradClip = 1.0, minLrRatio = 0.1;
  std::int64_t warmupSteps = 0, checkpointEvery = 100;
  std::int64_t loraRank = 0; // LoRA adapters of this rank on every projection; only they train (0: off)
  double loraAlpha = 16;
  std::string resume;

  static SftConfig fromFile(const std::string &path);
  static SftConfig fromJsonText(const std::string &text, const std::string &origin);
  std::string toJsonText() const;
};

class SftTrainer {
public:
  explicit SftTrainer(SftConfig config);
  boost::json::object step();
  // stopAfter > 0: at most that many steps now, then a checkpoint;
  // stopAfterSeconds > 0: no step starts after that long, then a checkpoint.
  void run(std::ostream &progress, std::int64_t stopAfter = 0, double stopAfterSeconds = 0);
  std::int64_t stepsDone() const { return step_; }
  std::int64_t totalSteps() const;

private:
  struct Example {
    std::vector<std::int64_t> ids;
    std::vector<std::uint8_t> completion; // 1 on the tokens the loss is on
  };
  SftConfig config_;
  Tokenizer tokenizer_;
  std::unique_ptr<PolicyModel> model_;
  std::unique_ptr<AdamW> optimizer_;
  std::vector<torch::Tensor> trainable_;
  std::vector<Example> examples_;
  std::int64_t step_ = 0;
};

} // namespace cudaperf::trainer
