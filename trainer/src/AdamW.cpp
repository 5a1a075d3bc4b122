#include "cudaperf/trainer/AdamW.h"

#include <cmath>
#include <stdexcept>

namespace cudaperf::trainer {

AdamW::AdamW(std::vector<torch::Tensor> parameters, AdamWOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  torch::NoGradGuard noGrad;
  for (const auto &p : parameters_) {
    // Moments in f32 whatever the weights' dtype: bf16 moments lose small updates.
    m_.push_back(torch::zeros(p.sizes(), p.options().dtype(torch::kFloat32)));
    v_.push_back(torch::zeros(p.sizes(), p.options().dtype(torch::kFloat32)));
    master_.push_back(p.scalar_type() == torch::kFloat32 ? torch::Tensor() : p.detach().to(torch::kFloat32).clone());
  }
}

void AdamW::step(double learningRate) {
  torch::NoGradGuard noGrad;
  ++steps_;
  const double correction1 = 1 - std::pow(options_.beta1, static_cast<double>(steps_));
  const double correction2 = 1 - std::pow(options_.beta2, static_cast<double>(steps_));
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    torch::Tensor &p = parameters_[i];
    if (!p.grad().defined())
      continue;
    const auto g = p.grad().to(torch::kFloat32);
    m_[i].mul_(options_.beta1).add_(g, 1 - options_.beta1);
    v_[i].mul_(options_.beta2).addcmul_(g, g, 1 - options_.beta2);
    auto update = (m_[i] / correction1) / ((v_[i] / correction2).sqrt() + options_.eps);
    if (master_[i].defined()) {
      master_[i].mul_(1 - learningRate * options_.weightDecay).sub_(update * learningRate);
      p.copy_(master_[i]);
    } else {
      p.mul_(1 - learningRate * options_.weightDecay).sub_(update * learningRate);
    }
  }
}

void AdamW::zeroGrad() {
  for (auto &p : parameters_)
    if (p.grad().defined())
      p.mutable_grad() = torch::Tensor();
}

std::map<std::string, torch::Tensor> AdamW::state() const {
  std::map<std::string, torch::Tensor> out;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    out["m." + std::to_string(i)] = m_[i];
    out["v." + std::to_string(i)] = v_[i];
    if (master_[i].defined())
      out["w." + std::to_string(i)] = master_[i];
  }
  return out;
}

void AdamW::loadState(const std::map<std::string, torch::Tensor> &state, std::int64_t steps) {
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    for (auto [prefix, target] : {std::pair{"m.", &m_[i]}, {"v.", &v_[i]}}) {
      auto it = state.find(prefix + std::to_string(i));
      if (it == state.end() || it->second.sizes() != target->sizes())
        throw std::runtime_error("optimizer state: '" + std::string(prefix) + std::to_string(i) +
                                 "' missing or of another shape");
      target->copy_(it->second);
    }
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (master_[i].defined()) {
      auto it = state.find("w." + std::to_string(i));
      if (it == state.end() || it->second.sizes() != master_[i].sizes())
        throw std::runtime_error("optimizer state: master weights 'w." + std::to_string(i) + "' missing");
      master_[i].copy_(it->second);
    }
  steps_ = steps;
}

double clipGradientNorm(const std::vector<torch::Tensor> &parameters, double maxNorm) {
  torch::NoGradGuard noGrad;
  double squares = 0;
  for (const auto &p : parameters)
    if (p.grad().defined())
      squares += p.grad().to(torch::kFloat32).pow(2).sum().item<double>();
  const double norm = std::sqrt(squares);
  if (maxNorm > 0 && norm > maxNorm)
    for (const auto &p : parameters)
      if (p.grad().defined())
        p.grad().mul_(maxNorm / (norm + 1e-6));
  return norm;
}

double warmupCosine(std::int64_t step, double base, std::int64_t warmupSteps, std::int64_t totalSteps,
                    double minRatio) {
  if (warmupSteps > 0 && step < warmupSteps)
    return base * static_cast<double>(step + 1) / static_cast<double>(warmupSteps);
  const double span = std::max<double>(1.0, static_cast<double>(totalSteps - warmupSteps));
  const double progress = std::min(1.0, static_cast<double>(step - warmupSteps) / span);
  const double pi = std::acos(-1.0);
  return base * (minRatio + (1 - minRatio) * 0.5 * (1 + std::cos(pi * progress)));
}

} // namespace cudaperf::trainer
