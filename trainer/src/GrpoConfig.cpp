#include "cudaperf/trainer/GrpoConfig.h"

#include "cudaperf/trainer/ConfigFields.h"
#include "cudaperf/contracts/TextFile.h"

#include <stdexcept>

namespace cudaperf::trainer {

namespace {

[[noreturn]] void fail(const std::string &origin, const std::string &key, const std::string &what) {
  throw std::invalid_argument(origin + ": '" + key + "' " + what);
}

// One table for reading and writing: the JSON key of each member.
ConfigTable fields(GrpoConfig &c) {
  return {{"model", &c.model},
          {"tasks_dir", &c.tasksDir},
          {"tasks", &c.tasks},
          {"out_dir", &c.outDir},
          {"device", &c.device},
          {"dtype", &c.dtype},
          {"seed", &c.seed},
          {"prompts_per_step", &c.promptsPerStep},
          {"group", &c.group},
          {"max_turns", &c.maxTurns},
          {"temperature", &c.temperature},
          {"top_p", &c.topP},
          {"top_k", &c.topK},
          {"max_new_tokens", &c.maxNewTokens},
          {"max_context_tokens", &c.maxContextTokens},
          {"daemon_urls", &c.daemonUrls},
          {"daemon_concurrency", &c.daemonConcurrency},
          {"advantage", &c.advantage},
          {"gamma", &c.gamma},
          {"rank_tie_break_by_speedup", &c.rankTieBreakBySpeedup},
          {"dcp_tau_min", &c.dcpTauMin},
          {"dcp_tau_max", &c.dcpTauMax},
          {"dcp_diagnostic", &c.dcpDiagnostic},
          {"filter_zero_std", &c.filterZeroStd},
          {"loss_aggregation", &c.lossAggregation},
          {"eps_low", &c.epsLow},
          {"eps_high", &c.epsHigh},
          {"beta", &c.beta},
          {"tis_cap", &c.tisCap},
          {"updates_per_batch", &c.updatesPerBatch},
          {"micro_batch", &c.microBatch},
          {"learning_rate", &c.learningRate},
          {"weight_decay", &c.weightDecay},
          {"grad_clip", &c.gradClip},
          {"min_lr_ratio", &c.minLrRatio},
          {"warmup_steps", &c.warmupSteps},
          {"lora_rank", &c.loraRank},
          {"lora_alpha", &c.loraAlpha},
          {"steps", &c.steps},
          {"checkpoint_every", &c.checkpointEvery},
          {"resume", &c.resume}};
}

} // namespace

GrpoConfig GrpoConfig::fromFile(const std::string &path) { return fromJsonText(readTextFile(path), path); }

GrpoConfig GrpoConfig::fromJsonText(const std::string &text, const std::string &origin) {
  GrpoConfig config;
  readConfigFields(text, origin, fields(config));
  if (config.model.empty())
    fail(origin, "model", "is required (a Hugging Face folder)");
  if (config.group < 1 || config.promptsPerStep < 1 || config.maxTurns < 1 || config.microBatch < 1 ||
      config.updatesPerBatch < 1 || config.steps < 0 || config.maxNewTokens < 1)
    throw std::invalid_argument(origin + ": group, prompts_per_step, max_turns, micro_batch, updates_per_batch and "
                                         "max_new_tokens must be at least 1, steps at least 0");
  if (config.temperature <= 0)
    fail(origin, "temperature", "must be positive for training (the log-probs need a distribution)");
  return config;
}

std::string GrpoConfig::toJsonText() const {
  GrpoConfig copy = *this;
  return writeConfigFields(fields(copy));
}

} // namespace cudaperf::trainer
