// The policy: a decoder-only transformer in LibTorch with the Llama, Qwen2
// (q/k/v biases) and Qwen3 (q/k RMSNorm) architectures: RMSNorm, rotary
// embeddings (the config's theta and rope scaling), grouped-query attention,
// SwiGLU MLP, tied or untied embeddings; f32, bf16 or f16. Loads a Hugging
// Face folder (config.json + model.safetensors or a sharded index) and saves
// one with our writer. Its logits follow transformers' on the same weights.
#pragma once

#include "cudaperf/trainer/ModelConfig.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace cudaperf::trainer {

// Keys and values of every layer, preallocated for the longest sequence:
// [2, batch, kv heads, capacity, head dim] per layer (keys, then values: one
// write puts a decode step's both). Slot j of a row holds the token of that
// row at step j (prompts left-padded, so one slot index per step).
struct KvCache {
  std::vector<torch::Tensor> keysAndValues;
  std::int64_t capacity = 0;
  // The fused decode step's attention workspace (made by its first step):
  // softmax partials per key block, arrival counters that each step leaves zero.
  torch::Tensor attentionPartials, attentionCounters;
  std::int64_t batch() const { return keysAndValues.empty() ? 0 : keysAndValues[0].size(1); }
};

class PolicyModel {
public:
  // Throws std::runtime_error naming the file and, where it applies, the tensor.
  static PolicyModel load(const std::string &folder, torch::Device device, torch::Dtype dtype);
  // Random weights (normal, std 0.02; norms 1), for tests and benchmarks.
  static PolicyModel random(const ModelConfig &config, torch::Device device, torch::Dtype dtype, std::uint64_t seed);
  // config.json and model.safetensors with transformers' tensor names. With
  // maxShardBytes > 0 and weights larger than that, shards in transformers'
  // layout instead (model-0000k-of-0000n.safetensors and
  // model.safetensors.index.json), each at most maxShardBytes of data unless
  // one tensor alone is larger: a checkpoint that must pass a per-file limit.
  void save(const std::string &folder, std::size_t maxShardBytes = 0) const;

  const ModelConfig &config() const { return config_; }
  torch::Device device() const { return device_; }
  torch::Dtype dtype() const { return dtype_; }
  std::vector<torch::Tensor> parameters() const;
  std::int64_t parameterCount() const;

  // LoRA: a rank-r update B A (scaled by alpha / r) beside the q/k/v, o,
  // gate/up and down projections of every layer; A random, B zero, so the
  // model starts as it was. Only the adapters are trained then; save() writes
  // the merged weights (a plain model folder), saveLora/loadLora the adapters.
  void addLora(std::int64_t rank, double alpha, std::uint64_t seed);
  bool hasLora() const { return loraRank_ > 0; }
  std::vector<torch::Tensor> loraParameters() const;
  void saveLora(const std::string &path) const;
  void loadLora(const std::string &path);

  KvCache makeCache(std::int64_t batch, std::int64_t capacity) const;

  // Full forward over ids [batch, T] (left-padded: the first firstSlot[b]
  // columns of row b are padding), no cache: logits [batch, T, vocab] in f32.
  // The trainer's path for log-probs.
  torch::Tensor forward(const torch::Tensor &ids, const torch::Tensor &firstSlot) const;
  // Prompt into the cache: ids [batch, T] written to slots [0, T); logits of
  // the last column [batch, vocab] in f32.
  torch::Tensor prefill(const torch::Tensor &ids, const torch::Tensor &firstSlot, KvCache &cache) const;
  // How a decode step runs: Fastest is the fused CUDA kernels of
  // DecodeKernels.h where they take this model and batch
  // (fusedDecodeFits), else ATen; ATen is LibTorch's operators always (the
  // reference the fused step is checked against).
  enum class DecodePath { Fastest, ATen };
  // One token per row at slot `slot` (a one-element int64 device tensor, so
  // that a captured CUDA graph can advance it): ids [batch]; logits [batch, vocab] f32.
  torch::Tensor decode(const torch::Tensor &ids, const torch::Tensor &slot, const torch::Tensor &firstSlot,
                       KvCache &cache, DecodePath path = DecodePath::Fastest) const;
  // Whether this build has the fused decode kernels and they take this model
  // (CUDA, bf16 or f16, no adapters, no o/MLP biases, head dim 64 or 128) at this batch (<= 64 rows).
  bool fusedDecodeFits(std::int64_t batch) const;

private:
  struct Lora {
    torch::Tensor a, b; // [rank, in], [out, rank]; undefined without LoRA
  };
  struct Layer {
    torch::Tensor inputNorm, qkv, qkvBias, output, outputBias, qNorm, kNorm, postNorm, gateUp, gateUpBias, down,
        downBias;
    Lora qkvLora, outputLora, gateUpLora, downLora;
  };
  torch::Tensor project(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias,
                        const Lora &lora) const;
  torch::Tensor merged(const torch::Tensor &weight, const Lora &lora) const;
  PolicyModel(ModelConfig config, torch::Device device, torch::Dtype dtype);
  void buildRotary();
  torch::Tensor rmsNorm(const torch::Tensor &x, const torch::Tensor &weight) const;
  torch::Tensor linearPlus(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias,
                           const Lora &lora, const torch::Tensor &residual) const;
  // What every layer of one forward shares, made once per forward (a decode
  // step is launch-bound: each kernel saved here is saved once per layer).
  struct LayerInputs {
    torch::Tensor cos, sin; // [B, T, 1, D]: the rotary rows of the tokens' positions
    // The mask over the grouped queries [B, kvH, G*T, S]: [B, 1, G*T, S], or
    // [B, 1, 1, S] when T is 1 (it broadcasts); additive (0 / -inf in the
    // model's dtype: SDPA would convert a bool one in every call).
    torch::Tensor mask;
    // T == 1 (a decode step): [B * (H + 2 kvH), D, D], per row and head the
    // matrix that x @ it rotates a q or k head (identity for v heads): the
    // rotation of all of q, k and v in one batched product per layer.
    torch::Tensor rotation;
  };
  // positions [B, T]; mask [B, 1, 1, T, S] bool (true: may attend).
  LayerInputs layerInputs(const torch::Tensor &positions, const torch::Tensor &mask) const;
  // hidden [B, T, H]; keys/values [B, kvH, S, D] already holding this step's.
  torch::Tensor layerForward(const Layer &layer, const torch::Tensor &hidden, const LayerInputs &inputs, KvCache *cache,
                             std::int64_t layerIndex, const torch::Tensor *slots, std::int64_t keyLength) const;
  torch::Tensor logits(const torch::Tensor &hidden) const;
  torch::Tensor decodeFused(const torch::Tensor &ids, const torch::Tensor &slot, const torch::Tensor &firstSlot,
                            KvCache &cache) const;

  ModelConfig config_;
  torch::Device device_;
  torch::Dtype dtype_;
  torch::Tensor embed_, finalNorm_, lmHead_; // lmHead_ is embed_ when tied
  std::vector<Layer> layers_;
  torch::Tensor rotaryTable_; // [maxPositions, 2, headDim]: cos, sin with its first half negated
  torch::Tensor rotaryShift_; // [headDim, headDim]: x @ it = roll(x, headDim / 2)
  std::int64_t loraRank_ = 0;
  double loraScale_ = 0;
};

// "cpu" or "cuda" (the first GPU; an error naming the problem when there is none).
torch::Device deviceNamed(const std::string &name);
// "f32", "bf16" or "f16".
torch::Dtype dtypeNamed(const std::string &name);

// Positions of a left-padded batch: 0 at each row's first real token.
torch::Tensor positionsFor(const torch::Tensor &firstSlot, std::int64_t begin, std::int64_t length);

} // namespace cudaperf::trainer
