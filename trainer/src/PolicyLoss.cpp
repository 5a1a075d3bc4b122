#include "cudaperf/trainer/PolicyLoss.h"

#include <stdexcept>

namespace cudaperf::trainer {

LossAggregation parseLossAggregation(const std::string &name) {
  if (name == "token_mean")
    return LossAggregation::TokenMean;
  if (name == "seq_mean_token_mean")
    return LossAggregation::SeqMeanTokenMean;
  if (name == "dr_grpo")
    return LossAggregation::DrGrpo;
  throw std::invalid_argument("loss aggregation: token_mean, seq_mean_token_mean or dr_grpo, not '" + name + "'");
}

double lossNormalizer(const torch::Tensor &fullBatchMask, const PolicyLossOptions &options) {
  return lossNormalizer(fullBatchMask.sum().item<double>(), static_cast<double>(fullBatchMask.size(0)), options);
}

double lossNormalizer(double tokens, double completions, const PolicyLossOptions &options) {
  switch (options.aggregation) {
  case LossAggregation::TokenMean:
    return std::max(1.0, tokens);
  case LossAggregation::SeqMeanTokenMean:
    return std::max(1.0, completions);
  case LossAggregation::DrGrpo:
    return std::max(1.0, completions * static_cast<double>(options.maxCompletionTokens));
  }
  return 1.0;
}

PolicyLossResult policyLoss(const PolicyLossBatch &batch, double normalizer, const PolicyLossOptions &options) {
  const torch::Tensor mask = batch.mask.to(batch.logProbs.scalar_type());
  torch::Tensor advantages = batch.advantages.to(batch.logProbs.scalar_type());
  if (advantages.dim() == 1)
    advantages = advantages.unsqueeze(1);
  const torch::Tensor oldLogProbs = batch.oldLogProbs.detach();
  // Log-ratios cleaned before exp: outside the mask (prompt, feedback, padding)
  // a token may be outside the top-p set (-inf), and inf * 0 would make the
  // whole loss NaN; inside it, +-20 bounds what one token can do.
  const auto inMask = mask > 0;
  const auto logRatio = torch::where(inMask, batch.logProbs - oldLogProbs, torch::zeros_like(batch.logProbs));
  const auto ratio = torch::exp(logRatio.clamp(-20, 20));
  const auto unclipped = ratio * advantages;
  const auto clipped = torch::clamp(ratio, 1 - options.epsLow, 1 + options.epsHigh) * advantages;
  torch::Tensor terms = -torch::min(unclipped, clipped);

  PolicyLossResult result;
  {
    torch::NoGradGuard counting;
    result.clippedTokens = ((clipped < unclipped).to(mask.scalar_type()) * mask).sum().item<double>();
    result.tokens = mask.sum().item<double>();
  }
  if (batch.samplerLogProbs.defined() && options.tisCap > 0) {
    // The samples came from the sampler, not from the trainer's old policy:
    // each token reweighted by their ratio, capped (no gradient through it).
    const auto ratioToSampler =
        torch::exp(torch::where(inMask, oldLogProbs - batch.samplerLogProbs.detach(), torch::zeros_like(oldLogProbs))
                       .clamp(-20, 20));
    result.tisClippedTokens = ((ratioToSampler > options.tisCap).to(mask.scalar_type()) * mask).sum().item<double>();
    terms = terms * ratioToSampler.clamp_max(options.tisCap);
  }
  if (options.beta > 0) {
    if (!batch.refLogProbs.defined())
      throw std::invalid_argument("policy loss: beta > 0 needs the reference's log-probs");
    const auto delta =
        torch::where(inMask, batch.refLogProbs.detach() - batch.logProbs, torch::zeros_like(batch.logProbs))
            .clamp(-20, 20);
    const auto kl = torch::exp(delta) - delta - 1;
    result.klSum = (kl.detach() * mask).sum().item<double>();
    terms = terms + options.beta * kl;
  }
  const torch::Tensor sum = options.aggregation == LossAggregation::SeqMeanTokenMean
                                ? ((terms * mask).sum(1) / mask.sum(1).clamp_min(1)).sum()
                                : (terms * mask).sum();
  result.loss = sum / normalizer;
  return result;
}

} // namespace cudaperf::trainer
