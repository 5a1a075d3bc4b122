// Checkpoints of sft and grpo: out_dir/step-N/ holds the model (config.json,
// model.safetensors, tokenizer.json: a folder every command loads),
// lora.safetensors (the adapters, with LoRA; the model files are then merged),
// optimizer.safetensors (AdamW's state) and trainer_state.json (step,
// optimizer steps, the run's settings); out_dir/latest names the newest,
// written atomically.
#pragma once

#include "cudaperf/trainer/AdamW.h"
#include "cudaperf/trainer/PolicyModel.h"

#include <cstdint>
#include <string>

namespace cudaperf::trainer {

void saveTrainingCheckpoint(const std::string &outDir, std::int64_t step, const PolicyModel &model,
                            const AdamW &optimizer, const std::string &tokenizerFolder, const std::string &configJson);

// The folder a `resume` setting means: "" (none), a folder, or "latest" (the
// one out_dir/latest names; "" when there is none yet; an error when it names nothing).
std::string resolveResume(const std::string &outDir, const std::string &resume);

// The optimizer's state into `optimizer`; returns the step the checkpoint was taken after.
std::int64_t loadTrainingCheckpoint(const std::string &folder, AdamW &optimizer, torch::Device device);

} // namespace cudaperf::trainer
