// The GRPO policy loss on token log-probs (LibTorch): the clipped surrogate
// with eps_low / eps_high (DAPO's clip-higher), truncated importance sampling
// between the sampler's and the trainer's old log-probs, k3 KL to a frozen
// reference, and three loss aggregations whose normaliser comes from the
// whole batch, so that micro-batches add up to the full-batch loss.
//
// Per token t of completion i (mask m_it = 1 for tokens trained on):
//   rho  = exp(logp - logp_old)
//   s    = -min(rho * A_i, clip(rho, 1 - eps_low, 1 + eps_high) * A_i)
//   w    = min(exp(logp_old - logp_sampler), tis_cap)      (1 when off; no gradient)
//   kl   = exp(logp_ref - logp) - (logp_ref - logp) - 1    (k3)
//   l_it = w * s + beta * kl
// (each log-ratio taken as 0 outside the mask and clamped to [-20, 20] inside)
// Aggregation over the batch of N completions:
//   token_mean:           sum_it m l / sum_it m
//   seq_mean_token_mean:  (1/N) sum_i (sum_t m l / sum_t m)
//   dr_grpo:              sum_it m l / (N * max_completion_tokens)
#pragma once

#include <torch/torch.h>

#include <string>

namespace cudaperf::trainer {

enum class LossAggregation { TokenMean, SeqMeanTokenMean, DrGrpo };
LossAggregation parseLossAggregation(const std::string &name); // token_mean | seq_mean_token_mean | dr_grpo

struct PolicyLossOptions {
  double epsLow = 0.2, epsHigh = 0.28;
  double beta = 0.0;   // k3 KL weight; 0: no reference needed
  double tisCap = 2.0; // truncated importance-sampling cap; 0: off
  LossAggregation aggregation = LossAggregation::TokenMean;
  std::int64_t maxCompletionTokens = 1; // dr_grpo's constant normaliser per completion
};

// [N, L] tensors; advantages [N] (one per completion) or [N, L] (per token, e.g. per turn).
struct PolicyLossBatch {
  torch::Tensor logProbs;        // the policy being trained (with gradient)
  torch::Tensor oldLogProbs;     // the trainer's log-probs of the sampling policy (no gradient)
  torch::Tensor samplerLogProbs; // the sampler's own (undefined: no correction)
  torch::Tensor refLogProbs;     // the frozen reference's (needed when beta > 0)
  torch::Tensor advantages;
  torch::Tensor mask; // 1 where the token is trained on, 0 for prompt, feedback and padding
};

// The whole batch's normaliser (tokens, completions, or the constant): pass
// the same value to every micro-batch's policyLoss.
double lossNormalizer(const torch::Tensor &fullBatchMask, const PolicyLossOptions &options);
// The same from the batch's trained tokens and completions (summed over the
// ranks of a data-parallel run).
double lossNormalizer(double tokens, double completions, const PolicyLossOptions &options);

struct PolicyLossResult {
  torch::Tensor loss;       // scalar, this micro-batch's share of the batch loss
  double clippedTokens = 0; // tokens whose clipped term was the active one
  double tokens = 0;        // tokens trained on in this micro-batch
  double klSum = 0;         // sum over tokens of k3 (0 when beta is 0)
  double tisClippedTokens = 0;
};

PolicyLossResult policyLoss(const PolicyLossBatch &batch, double normalizer, const PolicyLossOptions &options);

} // namespace cudaperf::trainer
