#include "cudaperf/trainer/ModelConfig.h"

#include "cudaperf/contracts/TextFile.h"

#include <boost/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace cudaperf::trainer {
namespace json = boost::json;

namespace {

struct Reader {
  const json::object &object;
  const std::string &origin;

  [[noreturn]] void fail(const std::string &what) const { throw std::runtime_error(origin + ": " + what); }
  const json::value *find(const char *key) const {
    const auto *value = object.if_contains(key);
    return value && !value->is_null() ? value : nullptr;
  }
  std::int64_t integer(const char *key) const {
    const auto *value = find(key);
    if (!value)
      fail(std::string("no '") + key + "'");
    return integerOf(*value, key);
  }
  std::int64_t integerOr(const char *key, std::int64_t fallback) const {
    const auto *value = find(key);
    return value ? integerOf(*value, key) : fallback;
  }
  std::int64_t integerOf(const json::value &value, const char *key) const {
    if (value.is_int64())
      return value.as_int64();
    if (value.is_uint64())
      return static_cast<std::int64_t>(value.as_uint64());
    if (value.is_double() && value.as_double() == std::floor(value.as_double()))
      return static_cast<std::int64_t>(value.as_double());
    fail(std::string("'") + key + "' is not an integer");
  }
  double real(const json::object &from, const char *key, double fallback) const {
    const auto *value = from.if_contains(key);
    if (!value || value->is_null())
      return fallback;
    if (value->is_number())
      return value->to_number<double>();
    fail(std::string("'") + key + "' is not a number");
  }
  bool flag(const char *key, bool fallback) const {
    const auto *value = find(key);
    if (!value)
      return fallback;
    if (!value->is_bool())
      fail(std::string("'") + key + "' is not true or false");
    return value->as_bool();
  }
  std::string text(const char *key, const std::string &fallback) const {
    const auto *value = find(key);
    return value && value->is_string() ? std::string(value->as_string()) : fallback;
  }
};

void parseRope(const Reader &reader, ModelConfig &config) {
  // transformers 4 writes rope_theta and rope_scaling; 5 writes both inside rope_parameters.
  const json::object *parameters = nullptr;
  if (const auto *value = reader.find("rope_parameters"); value && value->is_object())
    parameters = &value->as_object();
  config.ropeTheta = reader.real(reader.object, "rope_theta", 10000.0);
  if (parameters)
    config.ropeTheta = reader.real(*parameters, "rope_theta", config.ropeTheta);
  const json::object *scaling = parameters;
  if (const auto *value = reader.find("rope_scaling"); value && value->is_object())
    scaling = &value->as_object();
  if (!scaling)
    return;
  std::string type;
  for (const char *key : {"rope_type", "type"})
    if (const auto *value = scaling->if_contains(key); value && value->is_string())
      type = std::string(value->as_string());
  RopeScaling &rope = config.ropeScaling;
  if (type.empty() || type == "default")
    return;
  rope.factor = reader.real(*scaling, "factor", 1.0);
  if (type == "linear") {
    rope.kind = RopeScaling::Kind::Linear;
  } else if (type == "llama3") {
    rope.kind = RopeScaling::Kind::Llama3;
    rope.lowFreqFactor = reader.real(*scaling, "low_freq_factor", 1.0);
    rope.highFreqFactor = reader.real(*scaling, "high_freq_factor", 4.0);
    rope.originalMaxPositions =
        static_cast<std::int64_t>(reader.real(*scaling, "original_max_position_embeddings", 8192));
  } else {
    reader.fail("rope scaling '" + type + "' is not supported (default, linear and llama3 are)");
  }
}

} // namespace

ModelConfig ModelConfig::fromFile(const std::string &path) { return fromJsonText(readTextFile(path), path); }

ModelConfig ModelConfig::fromJsonText(const std::string &text, const std::string &origin) {
  json::value parsed;
  try {
    parsed = json::parse(text);
  } catch (const std::exception &error) {
    throw std::runtime_error(origin + ": not JSON: " + error.what());
  }
  if (!parsed.is_object())
    throw std::runtime_error(origin + ": not a JSON object");
  const Reader reader{parsed.as_object(), origin};
  ModelConfig config;
  std::string type = reader.text("model_type", "");
  if (const auto *architectures = reader.find("architectures"); architectures && architectures->is_array() &&
                                                                !architectures->as_array().empty() &&
                                                                architectures->as_array()[0].is_string())
    config.architecture = std::string(architectures->as_array()[0].as_string());
  if (type.empty())
    type = config.architecture;
  if (type == "llama" || type == "LlamaForCausalLM")
    config.family = ModelFamily::Llama;
  else if (type == "qwen2" || type == "Qwen2ForCausalLM")
    config.family = ModelFamily::Qwen2;
  else if (type == "qwen3" || type == "Qwen3ForCausalLM")
    config.family = ModelFamily::Qwen3;
  else
    reader.fail("model_type '" + type + "' is not supported (llama, qwen2 and qwen3 are)");

  config.vocabSize = reader.integer("vocab_size");
  config.hiddenSize = reader.integer("hidden_size");
  config.intermediateSize = reader.integer("intermediate_size");
  config.layers = reader.integer("num_hidden_layers");
  config.heads = reader.integer("num_attention_heads");
  config.kvHeads = reader.integerOr("num_key_value_heads", config.heads);
  config.headDim = reader.integerOr("head_dim", config.heads > 0 ? config.hiddenSize / config.heads : 0);
  config.maxPositions = reader.integerOr("max_position_embeddings", 32768);
  config.rmsNormEps = reader.real(reader.object, "rms_norm_eps", 1e-6);
  if (reader.find("hidden_act") && reader.text("hidden_act", "silu") != "silu")
    reader.fail("hidden_act '" + reader.text("hidden_act", "") + "' is not supported (silu is)");
  if (reader.flag("use_sliding_window", false))
    reader.fail("use_sliding_window is true: sliding-window attention is not supported");
  config.tieEmbeddings = reader.flag("tie_word_embeddings", false);
  if (config.family == ModelFamily::Qwen2) {
    config.qkvBias = true; // Qwen2 always has them, o_proj never
  } else {
    config.qkvBias = config.outputBias = reader.flag("attention_bias", false);
  }
  config.mlpBias = reader.flag("mlp_bias", false);
  config.qkNorm = config.family == ModelFamily::Qwen3;
  config.dtype = reader.text("torch_dtype", reader.text("dtype", "float32"));
  parseRope(reader, config);
  if (const auto *eos = reader.find("eos_token_id")) {
    if (eos->is_array()) {
      for (const auto &id : eos->as_array())
        config.eosTokenIds.push_back(reader.integerOf(id, "eos_token_id"));
    } else {
      config.eosTokenIds.push_back(reader.integerOf(*eos, "eos_token_id"));
    }
  }
  if (const auto *bos = reader.find("bos_token_id"))
    config.bosTokenId = reader.integerOf(*bos, "bos_token_id");

  for (auto [value, name] : {std::pair{config.vocabSize, "vocab_size"},
                             {config.hiddenSize, "hidden_size"},
                             {config.intermediateSize, "intermediate_size"},
                             {config.layers, "num_hidden_layers"},
                             {config.heads, "num_attention_heads"},
                             {config.kvHeads, "num_key_value_heads"},
                             {config.headDim, "head_dim"}})
    if (value <= 0)
      reader.fail(std::string("'") + name + "' must be positive");
  if (config.heads % config.kvHeads != 0)
    reader.fail("num_attention_heads (" + std::to_string(config.heads) +
                ") is not a multiple of num_key_value_heads (" + std::to_string(config.kvHeads) + ")");
  if (config.headDim % 2 != 0)
    reader.fail("head_dim must be even (rotary embeddings rotate pairs)");
  return config;
}

std::string ModelConfig::toJsonText() const {
  json::object out;
  const char *types[] = {"llama", "qwen2", "qwen3"};
  const char *architectures[] = {"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"};
  const int index = static_cast<int>(family);
  out["architectures"] = json::array{architectures[index]};
  out["model_type"] = types[index];
  out["vocab_size"] = vocabSize;
  out["hidden_size"] = hiddenSize;
  out["intermediate_size"] = intermediateSize;
  out["num_hidden_layers"] = layers;
  out["num_attention_heads"] = heads;
  out["num_key_value_heads"] = kvHeads;
  out["head_dim"] = headDim;
  out["max_position_embeddings"] = maxPositions;
  out["rms_norm_eps"] = rmsNormEps;
  out["rope_theta"] = ropeTheta;
  out["hidden_act"] = "silu";
  out["tie_word_embeddings"] = tieEmbeddings;
  if (family != ModelFamily::Qwen2)
    out["attention_bias"] = qkvBias;
  out["mlp_bias"] = mlpBias;
  out["torch_dtype"] = dtype;
  if (ropeScaling.kind == RopeScaling::Kind::Linear) {
    out["rope_scaling"] = json::object{{"rope_type", "linear"}, {"factor", ropeScaling.factor}};
  } else if (ropeScaling.kind == RopeScaling::Kind::Llama3) {
    out["rope_scaling"] = json::object{{"rope_type", "llama3"},
                                       {"factor", ropeScaling.factor},
                                       {"low_freq_factor", ropeScaling.lowFreqFactor},
                                       {"high_freq_factor", ropeScaling.highFreqFactor},
                                       {"original_max_position_embeddings", ropeScaling.originalMaxPositions}};
  }
  if (bosTokenId)
    out["bos_token_id"] = *bosTokenId;
  if (eosTokenIds.size() == 1)
    out["eos_token_id"] = eosTokenIds[0];
  else if (!eosTokenIds.empty())
    out["eos_token_id"] = json::value_from(eosTokenIds);
  return json::serialize(out);
}

std::vector<double> ModelConfig::inverseFrequencies() const {
  // In float32, as transformers computes them: parity to 1e-4 needs the same roundings.
  std::vector<double> out;
  const float dim = static_cast<float>(headDim);
  const double pi = std::acos(-1.0);
  for (std::int64_t i = 0; i < headDim; i += 2) {
    float inverse = 1.0f / std::pow(static_cast<float>(ropeTheta), static_cast<float>(i) / dim);
    if (ropeScaling.kind == RopeScaling::Kind::Linear) {
      inverse = inverse / static_cast<float>(ropeScaling.factor);
    } else if (ropeScaling.kind == RopeScaling::Kind::Llama3) {
      const double old = static_cast<double>(ropeScaling.originalMaxPositions);
      const double lowWavelength = old / ropeScaling.lowFreqFactor;
      const double highWavelength = old / ropeScaling.highFreqFactor;
      const double wavelength = 2 * pi / inverse;
      if (wavelength > lowWavelength) {
        inverse = static_cast<float>(inverse / ropeScaling.factor);
      } else if (wavelength >= highWavelength) {
        const double smooth =
            (old / wavelength - ropeScaling.lowFreqFactor) / (ropeScaling.highFreqFactor - ropeScaling.lowFreqFactor);
        inverse = static_cast<float>((1 - smooth) * inverse / ropeScaling.factor + smooth * inverse);
      }
    }
    out.push_back(inverse);
  }
  return out;
}

} // namespace cudaperf::trainer
