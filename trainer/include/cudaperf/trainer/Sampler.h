// Batched generation of G completions per prompt with a preallocated KV
// cache: temperature, top-k, top-p, max new tokens, stop on EOS ids and stop
// strings. Returns token ids, the log-prob of each token under the
// distribution it was actually drawn from, and text. On CUDA the decode step
// is one captured CUDA graph (no host work per token).
//
// The sampling distribution has one definition, samplingLogProbs, used by the
// sampler and by the trainer's recomputation (completionLogProbs): logits /
// temperature; top-k keeps the logits >= the k-th largest; top-p keeps, in
// descending order, each token whose preceding mass is < p; the kept ones
// renormalised. Temperature 0 is greedy (argmax, log-prob 0).
#pragma once

#include "cudaperf/trainer/PolicyModel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::trainer {

class Tokenizer;

struct SamplingOptions {
  double temperature = 1.0; // 0: greedy
  double topP = 1.0;        // 1: off
  std::int64_t topK = 0;    // 0: off
  std::int64_t maxNewTokens = 256;
  std::vector<std::int64_t> stopIds;    // EOS and the like: the token is kept, nothing after it
  std::vector<std::string> stopStrings; // needs a tokenizer; the text is cut after the string
  std::uint64_t seed = 0;
  // One seed per row (prompts x group) instead: each row's draws depend on
  // its seed alone, not on the other rows of the batch (how a data-parallel
  // run samples the same completions as one process).
  std::vector<std::uint64_t> rowSeeds;
  bool cudaGraph = true;     // on CUDA: capture the decode step once, replay it per token
  bool fusedDecode = true;   // the fused decode kernels where they take the model (PolicyModel::fusedDecodeFits)
  bool fusedSampling = true; // on CUDA where the decode kernels are built: the fused draw where it takes the
                             // options (TokenDrawKernels.h), the step's bookkeeping in one kernel (StepRecordKernel.h)
  std::int64_t padId = 0;
};

struct Completion {
  std::vector<std::int64_t> ids;
  std::vector<float> logProbs; // one per id
  std::string text;            // with a tokenizer
  std::string finish;          // "stop_id", "stop_string" or "length"
};

struct GenerationResult {
  // completions[p * G + g]: the g-th completion of prompt p
  std::vector<Completion> completions;
  double prefillSeconds = 0, decodeSeconds = 0;
  std::int64_t decodeSteps = 0;
  bool usedCudaGraph = false;
  bool usedFusedDecode = false;
  bool usedFusedSampling = false; // the step's bookkeeping ran as one kernel
  // On the CPU, [B, decodeSteps + 1]: every column the steps wrote, the
  // padding and zero log-probs of finished rows included (completions stop at the stop id).
  torch::Tensor generatedIds, generatedLogProbs;
};

// Rows of two generations equal in every column written (ids, the bits of
// each log-prob: NaN equals NaN, -0 differs from +0) and in finish reason; 0
// where the two ran different numbers of steps or rows.
std::int64_t bitEqualRows(const GenerationResult &a, const GenerationResult &b);

// A chat completion ends at the config's EOS ids or at <|im_end|>; padding uses the first of them.
void stopAtEndOfTurn(SamplingOptions &options, const ModelConfig &config, const Tokenizer &tokenizer);

// [..., vocab] f32 logits -> log-probs of the sampling distribution (-inf where removed).
torch::Tensor samplingLogProbs(const torch::Tensor &logits, const SamplingOptions &options);

// One id per row of log-probs [B, V], drawn by the inverse CDF over the ids
// in id order with uniforms [B] in (0, 1): the first id whose cumulative
// mass reaches u * total. Never an id of zero probability.
torch::Tensor inverseCdfDraw(const torch::Tensor &logProbs, const torch::Tensor &uniforms);

class Sampler {
public:
  Sampler(const PolicyModel &model, const Tokenizer *tokenizer = nullptr) : model_(model), tokenizer_(tokenizer) {}
  GenerationResult generate(const std::vector<std::vector<std::int64_t>> &prompts, std::int64_t group,
                            const SamplingOptions &options) const;
  // One completion per prompt, generated in chunks of rows that fit: the
  // prefill's attention of a chunk (rows x heads x T x T scores, T its
  // longest prompt) stays under kPrefillScoreBudget, and a chunk is never
  // more rows than the fused decode step takes. Only `completions` and the
  // timings are filled (seconds summed, decodeSteps the most of any chunk).
  // With rowSeeds the completions are those of one generate over all rows;
  // without, each chunk draws from its own seed (not what one generate draws).
  GenerationResult generateInChunks(const std::vector<std::vector<std::int64_t>> &prompts,
                                    const SamplingOptions &options) const;
  // The rows of a chunk whose longest prompt is `longest` tokens.
  std::int64_t rowsPerChunk(std::int64_t longest) const;
  // Attention scores one prefill may hold (f32 elements: 8 GiB, several times that transiently).
  static constexpr std::int64_t kPrefillScoreBudget = std::int64_t{1} << 31;
  static constexpr std::int64_t kMaxRowsPerChunk = 64;

private:
  const PolicyModel &model_;
  const Tokenizer *tokenizer_;
};

// The trainer's path: one full forward over prompt + completion per row, the
// same sampling distribution: log-prob of each completion token.
std::vector<std::vector<float>> completionLogProbs(const PolicyModel &model,
                                                   const std::vector<std::vector<std::int64_t>> &prompts,
                                                   const std::vector<std::vector<std::int64_t>> &completions,
                                                   const SamplingOptions &options, std::int64_t rowsPerForward = 4);

// The fused decode step against the ATen one: G rows per prompt prefilled
// once, the cache copied, then `steps` greedy steps on each path from the
// same tokens (the ATen path's argmax feeds both). fused is false (and
// nothing else is set) where the fused kernels do not take this model.
struct DecodePathAgreement {
  bool fused = false;
  std::int64_t steps = 0, rows = 0, sameArgmax = 0;
  double maxLogitDiff = 0, maxAbsLogit = 0, maxCacheDiff = 0, maxAbsCache = 0;
};
DecodePathAgreement compareDecodePaths(const PolicyModel &model, const std::vector<std::vector<std::int64_t>> &prompts,
                                       std::int64_t group, std::int64_t steps, std::int64_t padId);

// The fused draw (TokenDrawKernels.h; temperature > 0, no top-k or top-p,
// CUDA f32 logits [B, V]) against samplingLogProbs + inverseCdfDraw on the
// same logits and `trials` sets of uniforms (the fused draw reading them as
// the sampler does, from a [steps, B] table at a device row index): tokens equal, and the largest
// |log-prob difference| at the fused draw's token. fused is false where the
// fused draw does not take these logits or options.
struct DrawPathAgreement {
  bool fused = false;
  std::int64_t draws = 0, sameTokens = 0;
  double maxLogProbDiff = 0;
};
DrawPathAgreement compareDrawPaths(const torch::Tensor &logits, const SamplingOptions &options, std::int64_t trials,
                                   std::uint64_t seed);

// The step's bookkeeping kernel (StepRecordKernel.h) against LibTorch's:
// generate with fusedSampling on and off, where both take the same draws
// (greedy, and T = 1 with top-p 0.999, which keeps the ATen draw), with stop
// ids taken from a first run so that rows end at different steps. Bit-equal
// rows expected (bitEqualRows: finished rows' padding too) and the same number of steps. fused is false where the
// kernel does not run (CPU, or a build without the decode kernels).
struct RecordPathAgreement {
  bool fused = false;
  std::int64_t completions = 0, sameCompletions = 0, stoppedEarly = 0;
  bool sameSteps = true;
};
RecordPathAgreement compareRecordPaths(const Sampler &sampler, const std::vector<std::vector<std::int64_t>> &prompts,
                                       std::int64_t group, SamplingOptions options);

} // namespace cudaperf::trainer
