// The GRPO policy loss against values worked out by hand: both sides of the
// clip and their gradients, each aggregation, micro-batches adding up to the
// full batch, k3 KL and its gradient, truncated importance sampling, masks.
#include "cudaperf/trainer/PolicyLoss.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace cudaperf::trainer;

namespace {

torch::Tensor row(std::vector<double> values) { return torch::tensor(values, torch::kFloat64).unsqueeze(0); }

TEST(PolicyLossTest, PositiveAdvantageClipsAboveOnePlusEpsHigh) {
  // ratio 1.5 (clipped to 1.28), 0.9 (inside), 5 (masked out).
  auto logp = row({std::log(1.5), std::log(0.9), std::log(5.0)}).requires_grad_(true);
  PolicyLossBatch batch{logp, torch::zeros({1, 3}, torch::kFloat64), {},
                        {},   torch::tensor({1.0}, torch::kFloat64), row({1, 1, 0})};
  PolicyLossOptions options; // eps 0.2 / 0.28
  auto result = policyLoss(batch, lossNormalizer(batch.mask, options), options);
  EXPECT_NEAR(result.loss.item<double>(), -(1.28 + 0.9) / 2, 1e-12);
  EXPECT_EQ(result.clippedTokens, 1);
  EXPECT_EQ(result.tokens, 2);
  result.loss.backward();
  auto grad = logp.grad();
  EXPECT_NEAR(grad[0][0].item<double>(), 0.0, 1e-12);   // clipped: no gradient
  EXPECT_NEAR(grad[0][1].item<double>(), -0.45, 1e-12); // -ratio * A / 2 tokens
  EXPECT_NEAR(grad[0][2].item<double>(), 0.0, 1e-12);   // masked
}

TEST(PolicyLossTest, NegativeAdvantageClipsBelowOneMinusEpsLow) {
  auto logp = row({std::log(0.5), std::log(1.1)}).requires_grad_(true);
  PolicyLossBatch batch{logp, torch::zeros({1, 2}, torch::kFloat64),  {},
                        {},   torch::tensor({-1.0}, torch::kFloat64), row({1, 1})};
  PolicyLossOptions options;
  auto result = policyLoss(batch, lossNormalizer(batch.mask, options), options);
  // min(-0.5, -0.8) = -0.8 and min(-1.1, -1.1): the loss is the negation, averaged.
  EXPECT_NEAR(result.loss.item<double>(), (0.8 + 1.1) / 2, 1e-12);
  EXPECT_EQ(result.clippedTokens, 1);
  result.loss.backward();
  EXPECT_NEAR(logp.grad()[0][0].item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(logp.grad()[0][1].item<double>(), 1.1 / 2, 1e-12);
  // A ratio above 1 + eps_high with a negative advantage is not clipped (the pessimistic side).
  auto high = row({std::log(2.0)}).requires_grad_(true);
  PolicyLossBatch other{high, torch::zeros({1, 1}, torch::kFloat64),  {},
                        {},   torch::tensor({-1.0}, torch::kFloat64), row({1})};
  auto unclipped = policyLoss(other, 1, options);
  EXPECT_NEAR(unclipped.loss.item<double>(), 2.0, 1e-12);
  EXPECT_EQ(unclipped.clippedTokens, 0);
}

// Two completions at ratio 1, per-token advantages chosen so the per-token
// losses are [1, 2, -, -] and [3, 3, 3, 3].
PolicyLossBatch twoCompletions(torch::Tensor logp) {
  return {logp,
          torch::zeros({2, 4}, torch::kFloat64),
          {},
          {},
          torch::tensor({-1.0, -2.0, 0.0, 0.0, -3.0, -3.0, -3.0, -3.0}, torch::kFloat64).view({2, 4}),
          torch::tensor({1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0}, torch::kFloat64).view({2, 4})};
}

TEST(PolicyLossTest, AggregationsByHand) {
  const struct {
    LossAggregation aggregation;
    double expected;
  } cases[] = {{LossAggregation::TokenMean, 15.0 / 6},
               {LossAggregation::SeqMeanTokenMean, (1.5 + 3.0) / 2},
               {LossAggregation::DrGrpo, 15.0 / (2 * 4)}};
  for (const auto &c : cases) {
    PolicyLossOptions options;
    options.aggregation = c.aggregation;
    options.maxCompletionTokens = 4;
    auto batch = twoCompletions(torch::zeros({2, 4}, torch::kFloat64));
    EXPECT_NEAR(policyLoss(batch, lossNormalizer(batch.mask, options), options).loss.item<double>(), c.expected, 1e-12);
  }
  EXPECT_EQ(parseLossAggregation("seq_mean_token_mean"), LossAggregation::SeqMeanTokenMean);
  EXPECT_THROW(parseLossAggregation("sum"), std::invalid_argument);
}

TEST(PolicyLossTest, MicroBatchesAddUpToTheFullBatchLossAndGradient) {
  for (auto aggregation : {LossAggregation::TokenMean, LossAggregation::SeqMeanTokenMean, LossAggregation::DrGrpo}) {
    PolicyLossOptions options;
    options.aggregation = aggregation;
    options.maxCompletionTokens = 4;
    auto values = torch::tensor({0.1, -0.2, 0.3, 0.0, 0.05, 0.2, -0.1, 0.15}, torch::kFloat64).view({2, 4});
    auto full = values.clone().requires_grad_(true);
    auto fullBatch = twoCompletions(full);
    const double normalizer = lossNormalizer(fullBatch.mask, options);
    auto whole = policyLoss(fullBatch, normalizer, options).loss;
    whole.backward();
    auto parts = values.clone().requires_grad_(true);
    double summed = 0;
    for (int i = 0; i < 2; ++i) {
      auto batch = twoCompletions(parts);
      PolicyLossBatch micro{batch.logProbs.narrow(0, i, 1),   batch.oldLogProbs.narrow(0, i, 1), {}, {},
                            batch.advantages.narrow(0, i, 1), batch.mask.narrow(0, i, 1)};
      auto loss = policyLoss(micro, normalizer, options).loss;
      loss.backward(); // gradients accumulate as in gradient accumulation
      summed += loss.item<double>();
    }
    EXPECT_NEAR(summed, whole.item<double>(), 1e-12);
    EXPECT_LT((parts.grad() - full.grad()).abs().max().item<double>(), 1e-12);
  }
}

TEST(PolicyLossTest, K3KlValueAndGradient) {
  auto logp = row({std::log(0.5)}).requires_grad_(true);
  PolicyLossOptions options;
  options.beta = 0.1;
  PolicyLossBatch batch{logp,    logp.detach(), {}, row({std::log(0.25)}), torch::tensor({0.0}, torch::kFloat64),
                        row({1})};
  auto result = policyLoss(batch, 1, options);
  const double k3 = 0.5 + std::log(2.0) - 1; // exp(-ln 2) - (-ln 2) - 1
  EXPECT_NEAR(result.klSum, k3, 1e-12);
  EXPECT_NEAR(result.loss.item<double>(), 0.1 * k3, 1e-12);
  result.loss.backward();
  EXPECT_NEAR(logp.grad()[0][0].item<double>(), 0.1 * (1 - 0.5), 1e-12); // beta (1 - exp(ref - logp))
  options.beta = 0.1;
  batch.refLogProbs = torch::Tensor();
  EXPECT_THROW(policyLoss(batch, 1, options), std::invalid_argument);
}

TEST(PolicyLossTest, TruncatedImportanceSamplingWeightsAndCaps) {
  PolicyLossOptions options; // cap 2
  // Trainer's old policy 0.3, the sampler's 0.1: weight 3, capped at 2; 0.2 vs 0.4: weight 0.5.
  auto old = row({std::log(0.3), std::log(0.2)});
  PolicyLossBatch batch{old.clone().requires_grad_(true),      old,        row({std::log(0.1), std::log(0.4)}), {},
                        torch::tensor({1.0}, torch::kFloat64), row({1, 1})};
  auto result = policyLoss(batch, 2, options);
  EXPECT_NEAR(result.loss.item<double>(), -(2.0 + 0.5) / 2, 1e-12);
  EXPECT_EQ(result.tisClippedTokens, 1);
  options.tisCap = 0; // off
  EXPECT_NEAR(policyLoss(batch, 2, options).loss.item<double>(), -1.0, 1e-12);
}

TEST(PolicyLossTest, TokensOutsideTheNucleusOutsideTheMaskCannotMakeItNaN) {
  // Column 1 is a prompt token (mask 0) that top-p removed: -inf for the
  // policy and the reference. The loss and its gradient stay finite.
  const double minusInf = -std::numeric_limits<double>::infinity();
  auto logp = row({std::log(0.5), minusInf}).requires_grad_(true);
  PolicyLossOptions options;
  options.beta = 0.1;
  PolicyLossBatch batch{logp,
                        row({std::log(0.5), -1e3}),
                        row({std::log(0.5), minusInf}),
                        row({std::log(0.4), minusInf}),
                        torch::tensor({1.0}, torch::kFloat64),
                        row({1, 0})};
  auto result = policyLoss(batch, 1, options);
  ASSERT_TRUE(std::isfinite(result.loss.item<double>()));
  result.loss.backward();
  EXPECT_TRUE(torch::isfinite(logp.grad()).all().item<bool>());
  EXPECT_EQ(logp.grad()[0][1].item<double>(), 0.0);
}

} // namespace
