// GRPO with multi-turn refinement (DESIGN §6): per step, G completions of
// each of P task prompts; each completion's code evaluated by the reward
// source (cudaperfd); groups that LEAP's DCP gate admits take another turn
// with the daemon's feedback appended as token ids; per-turn advantages;
// the clipped policy loss over the policy's own tokens (feedback masked out,
// kept in attention), micro-batched, AdamW; one JSON log record per step;
// full-state checkpoints and exact resume (sampling seeds and data order are
// functions of the seed and the step, so no random state needs restoring).
#pragma once

#include "cudaperf/trainer/AdamW.h"
#include "cudaperf/trainer/DataParallel.h"
#include "cudaperf/trainer/GrpoConfig.h"
#include "cudaperf/trainer/PolicyModel.h"
#include "cudaperf/trainer/RewardClient.h"
#include "cudaperf/trainer/Sampler.h"
#include "cudaperf/trainer/Tokenizer.h"

#include "cudaperf/contracts/TaskSpec.h"

#include <boost/json.hpp>

#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cudaperf::trainer {

// Where the rewards come from: the daemon in real runs.
class RewardSource {
public:
  virtual ~RewardSource() = default;
  virtual std::vector<RewardAnswer> evaluate(const std::vector<RewardRequest> &requests) = 0;
};

class DaemonRewards : public RewardSource {
public:
  explicit DaemonRewards(RewardClientOptions options) : client_(std::move(options)) {}
  std::vector<RewardAnswer> evaluate(const std::vector<RewardRequest> &requests) override {
    return client_.evaluateAll(requests);
  }

private:
  RewardClient client_;
};

// The policy's log-prob of each next token under the sampling distribution:
// [B, L - 1] for ids [B, L] (left-padded; firstSlot [B]), with gradient.
// entropy (optional): the distribution's entropy at each position, no gradient.
torch::Tensor tokenLogProbs(const PolicyModel &model, const torch::Tensor &ids, const torch::Tensor &firstSlot,
                            const SamplingOptions &options, torch::Tensor *entropy = nullptr);

class GrpoTrainer {
public:
  // parallel: this process's place in a data-parallel run (nullptr: one
  // process). Each rank rolls out, scores and trains on its share of every
  // step's groups; gradients and the step's figures are summed over ranks.
  GrpoTrainer(GrpoConfig config, RewardSource &rewards, DataParallel *parallel = nullptr);
  // One step: rollout, rewards, advantages, updates. Returns its log record.
  boost::json::object step();
  // Steps until config.steps: log records to out_dir/log.jsonl, progress to
  // `progress`, checkpoints every checkpoint_every steps and at the end.
  // stopAfter > 0: at most that many steps in this invocation, then a
  // checkpoint (a job with a time limit; resume continues the same schedule).
  // stopAfterSeconds > 0: no step starts once this invocation has run that
  // long (every rank agrees, from the slowest), then a checkpoint.
  void run(std::ostream &progress, std::int64_t stopAfter = 0, double stopAfterSeconds = 0);
  void saveCheckpoint() const;
  std::int64_t stepsDone() const { return step_; }
  const GrpoConfig &config() const { return config_; }

private:
  struct Trajectory;
  std::vector<std::size_t> promptsOfStep(std::int64_t step) const;

  GrpoConfig config_;
  RewardSource &rewards_;
  DataParallel *parallel_;
  Tokenizer tokenizer_;
  std::unique_ptr<PolicyModel> model_, reference_;
  std::unique_ptr<AdamW> optimizer_;
  std::vector<torch::Tensor> trainable_; // every weight, or only the LoRA adapters
  std::vector<TaskSpec> tasks_;
  SamplingOptions sampling_;
  std::int64_t step_ = 0;
  // out_dir/completions.jsonl (completions-rank-N.jsonl on rank N > 0 of a data-parallel run): every
  // scored completion (CompletionRecord.h), opened at the first step of this process.
  std::ofstream completions_;
};

} // namespace cudaperf::trainer
