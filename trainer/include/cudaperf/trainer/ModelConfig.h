// A decoder-only model's shape, read from a Hugging Face config.json:
// Llama (LlamaForCausalLM), Qwen2 (q/k/v biases) and Qwen3 (q/k RMSNorm).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf::trainer {

enum class ModelFamily { Llama, Qwen2, Qwen3 };

// How the rotary frequencies are rescaled for long contexts (config's rope_scaling).
struct RopeScaling {
  enum class Kind { None, Linear, Llama3 } kind = Kind::None;
  double factor = 1.0;
  // llama3 only
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;
  std::int64_t originalMaxPositions = 8192;
};

struct ModelConfig {
  ModelFamily family = ModelFamily::Llama;
  std::string architecture; // as the config names it
  std::int64_t vocabSize = 0, hiddenSize = 0, intermediateSize = 0, layers = 0;
  std::int64_t heads = 0, kvHeads = 0, headDim = 0, maxPositions = 0;
  double rmsNormEps = 1e-6, ropeTheta = 10000.0;
  RopeScaling ropeScaling;
  bool tieEmbeddings = false;
  bool qkvBias = false, outputBias = false, mlpBias = false; // Llama's attention_bias covers q, k, v and o
  bool qkNorm = false;                                       // Qwen3
  std::string dtype = "float32";                             // torch_dtype as stored
  std::vector<std::int64_t> eosTokenIds;
  std::optional<std::int64_t> bosTokenId;

  // Throws std::runtime_error naming the file and the field.
  static ModelConfig fromFile(const std::string &path);
  static ModelConfig fromJsonText(const std::string &text, const std::string &origin);
  // The config.json our writer puts beside checkpoints (Hugging Face's field names).
  std::string toJsonText() const;
  // Rotary inverse frequencies (headDim / 2 of them) after rope scaling.
  std::vector<double> inverseFrequencies() const;
};

} // namespace cudaperf::trainer
