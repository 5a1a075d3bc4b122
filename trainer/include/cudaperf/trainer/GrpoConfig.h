// Every knob of cudaperf-train grpo, read from one JSON file (keys as in
// docs/training.md; unknown keys are an error, so a typo never trains with a
// default), printed at start and stored in every checkpoint. No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::trainer {

struct GrpoConfig {
  // model and data
  std::string model; // Hugging Face folder (config.json, safetensors, tokenizer.json)
  std::string tasksDir = "tasks";
  std::vector<std::string> tasks; // empty: every task of tasksDir
  std::string outDir = "grpo-run";
  std::string device = "cpu";
  std::string dtype = "f32"; // the trained weights' dtype (AdamW's moments are f32)
  std::uint64_t seed = 0;
  // rollout
  int promptsPerStep = 2;
  int group = 4; // G completions per prompt
  int maxTurns = 1;
  double temperature = 1.0, topP = 1.0;
  std::int64_t topK = 0;
  std::int64_t maxNewTokens = 512;
  std::int64_t maxContextTokens = 4096; // a trajectory stops taking turns beyond this
  // rewards and advantages
  std::vector<std::string> daemonUrls{"http://127.0.0.1:8742"};
  int daemonConcurrency = 8;
  std::string advantage = "grpo"; // grpo | dr_grpo | rank
  double gamma = 1.0;
  bool rankTieBreakBySpeedup = true;
  int dcpTauMin = 1, dcpTauMax = 1 << 30;
  bool dcpDiagnostic = false; // pruned groups' next turn run (not trained on) to log their recovery
  bool filterZeroStd = true;
  // loss
  std::string lossAggregation = "token_mean"; // token_mean | seq_mean_token_mean | dr_grpo
  double epsLow = 0.2, epsHigh = 0.28;
  double beta = 0.0; // k3 KL to the frozen starting policy; 0 keeps no reference
  double tisCap = 2.0;
  int updatesPerBatch = 1;
  int microBatch = 2; // sequences per forward/backward
  // optimizer
  double learningRate = 1e-6, weightDecay = 0.0, gradClip = 1.0, minLrRatio = 0.1;
  std::int64_t warmupSteps = 0;
  // LoRA (0: full fine-tuning): adapters of this rank on every projection; only they train
  std::int64_t loraRank = 0;
  double loraAlpha = 16;
  // run
  std::int64_t steps = 10;
  std::int64_t checkpointEvery = 10;
  std::string resume; // a checkpoint folder, or "latest" in outDir

  static GrpoConfig fromFile(const std::string &path);
  static GrpoConfig fromJsonText(const std::string &text, const std::string &origin);
  std::string toJsonText() const;
};

} // namespace cudaperf::trainer
