// AdamW (decoupled weight decay) over a list of tensors, with its state in
// plain tensors so that a checkpoint holds it in safetensors and resumes it
// exactly, the same on LibTorch 1.13 and 2.11. Per parameter p with gradient g,
// step t (from 1), learning rate lr:
//   m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2
//   p = p - lr wd p - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// Weights in bf16 or f16 are updated through an f32 master copy (kept in the
// state, so resume stays exact): a 1e-6 update is below bf16's resolution.
// Plus global gradient-norm clipping and the warm-up + cosine schedule.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace cudaperf::trainer {

struct AdamWOptions {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.0;
};

class AdamW {
public:
  AdamW(std::vector<torch::Tensor> parameters, AdamWOptions options);
  // One update at this learning rate; parameters without a gradient are left alone.
  void step(double learningRate);
  void zeroGrad();
  std::int64_t steps() const { return steps_; }
  // "m.<i>", "v.<i>" (and "w.<i>", the f32 master of a low-precision weight) tensors, for checkpoints.
  std::map<std::string, torch::Tensor> state() const;
  void loadState(const std::map<std::string, torch::Tensor> &state, std::int64_t steps);

private:
  std::vector<torch::Tensor> parameters_, m_, v_, master_; // master_[i] undefined for f32 weights
  AdamWOptions options_;
  std::int64_t steps_ = 0;
};

// Scales the gradients so that their global L2 norm is at most maxNorm (<= 0:
// no clipping); returns the norm before (not finite: the caller skips the step).
double clipGradientNorm(const std::vector<torch::Tensor> &parameters, double maxNorm);

// lr at optimizer step `step` (0-based): linear warm-up over warmupSteps, then
// cosine from base to base * minRatio at totalSteps.
double warmupCosine(std::int64_t step, double base, std::int64_t warmupSteps, std::int64_t totalSteps,
                    double minRatio = 0.1);

} // namespace cudaperf::trainer
