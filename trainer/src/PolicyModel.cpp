#include "cudaperf/trainer/PolicyModel.h"

#include "cudaperf/trainer/Safetensors.h"

#include <torch/version.h>

#ifdef CUDAPERF_FUSED_DECODE
#include "cudaperf/trainer/DecodeKernels.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <boost/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace cudaperf::trainer {

namespace {

torch::Dtype torchDtypeOf(TensorDtype dtype) {
  switch (dtype) {
  case TensorDtype::F32:
    return torch::kFloat32;
  case TensorDtype::F16:
    return torch::kFloat16;
  case TensorDtype::BF16:
    return torch::kBFloat16;
  case TensorDtype::F64:
    return torch::kFloat64;
  default:
    throw std::runtime_error(std::string("dtype ") + tensorDtypeName(dtype) + " is not a floating-point weight");
  }
}

TensorDtype fileDtypeOf(torch::Dtype dtype) {
  if (dtype == torch::kFloat32)
    return TensorDtype::F32;
  if (dtype == torch::kFloat16)
    return TensorDtype::F16;
  if (dtype == torch::kBFloat16)
    return TensorDtype::BF16;
  throw std::runtime_error("cannot save weights of this dtype");
}

std::string dtypeName(torch::Dtype dtype) {
  return dtype == torch::kBFloat16 ? "bfloat16" : dtype == torch::kFloat16 ? "float16" : "float32";
}

// The tensor named, checked against the shape the config implies.
class WeightReader {
public:
  WeightReader(const SafetensorsSet &set, torch::Device device, torch::Dtype dtype)
      : set_(set), device_(device), dtype_(dtype) {}

  torch::Tensor operator()(const std::string &name, std::vector<std::int64_t> shape) const {
    const TensorView &view = set_.at(name);
    if (view.shape != shape) {
      auto text = [](const std::vector<std::int64_t> &s) {
        std::string out = "[";
        for (std::size_t i = 0; i < s.size(); ++i)
          out += (i ? ", " : "") + std::to_string(s[i]);
        return out + "]";
      };
      throw std::runtime_error(set_.pathOf(name) + ": tensor '" + name + "' has shape " + text(view.shape) +
                               ", the config implies " + text(shape));
    }
    torch::Dtype stored;
    try {
      stored = torchDtypeOf(view.dtype);
    } catch (const std::exception &error) {
      throw std::runtime_error(set_.pathOf(name) + ": tensor '" + name + "': " + error.what());
    }
    // A copy: the mapping's data need not be aligned for the dtype.
    torch::Tensor host = torch::empty(shape, torch::TensorOptions().dtype(stored));
    std::memcpy(host.data_ptr(), view.data, view.bytes);
    return host.to(device_, dtype_);
  }
  bool has(const std::string &name) const { return set_.contains(name); }

private:
  const SafetensorsSet &set_;
  torch::Device device_;
  torch::Dtype dtype_;
};

} // namespace

torch::Device deviceNamed(const std::string &name) {
  if (name == "cpu")
    return torch::kCPU;
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!torch::cuda::is_available())
      throw std::invalid_argument("device " + name + ": no CUDA device (or this LibTorch has no CUDA)");
    // cuda:N, the GPU of one rank of a data-parallel run.
    const std::string index = name == "cuda" ? "0" : name.substr(5);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos || index.size() > 3 ||
        std::stoi(index) >= static_cast<int>(torch::cuda::device_count()))
      throw std::invalid_argument("device " + name + ": there are " + std::to_string(torch::cuda::device_count()) +
                                  " CUDA devices");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(std::stoi(index)));
  }
  throw std::invalid_argument("device: cpu, cuda or cuda:N, not '" + name + "'");
}

torch::Dtype dtypeNamed(const std::string &name) {
  if (name == "f32")
    return torch::kFloat32;
  if (name == "bf16")
    return torch::kBFloat16;
  if (name == "f16")
    return torch::kFloat16;
  throw std::invalid_argument("dtype: f32, bf16 or f16, not '" + name + "'");
}

torch::Tensor positionsFor(const torch::Tensor &firstSlot, std::int64_t begin, std::int64_t length) {
  auto slots =
      torch::arange(begin, begin + length, torch::TensorOptions().dtype(torch::kInt64).device(firstSlot.device()));
  return (slots.unsqueeze(0) - firstSlot.unsqueeze(1)).clamp_min(0);
}

PolicyModel::PolicyModel(ModelConfig config, torch::Device device, torch::Dtype dtype)
    : config_(std::move(config)), device_(device), dtype_(dtype) {}

void PolicyModel::buildRotary() {
  const std::vector<double> inverse = config_.inverseFrequencies();
  std::vector<float> values(inverse.begin(), inverse.end());
  auto frequencies =
      torch::from_blob(values.data(), {static_cast<std::int64_t>(values.size())}, torch::kFloat32).clone();
  auto positions = torch::arange(config_.maxPositions, torch::kFloat32);
  auto angles = positions.unsqueeze(1) * frequencies.unsqueeze(0); // one multiply, as transformers
  auto both = torch::cat({angles, angles}, 1);
  // One table [positions, 2, D] of cos and of sin with the first half negated,
  // in the model's dtype (transformers casts them to it too): one lookup per
  // layer, and rotate_half(x) * sin = roll(x, D/2) * signedSin.
  const auto half = config_.headDim / 2;
  auto sign = torch::cat({-torch::ones({half}), torch::ones({half})});
  rotaryTable_ = torch::stack({both.cos(), both.sin() * sign}, 1).to(device_, dtype_);
  const auto D = config_.headDim;
  auto column = torch::arange(D, torch::kInt64);
  auto shift = torch::zeros({D, D});
  shift.index_put_({(column + half) % D, column}, torch::ones({D}));
  rotaryShift_ = shift.to(device_, dtype_);
}

PolicyModel PolicyModel::load(const std::string &folder, torch::Device device, torch::Dtype dtype) {
  torch::NoGradGuard noGrad;
  ModelConfig config = ModelConfig::fromFile(folder + "/config.json");
  PolicyModel model(config, device, dtype);
  const SafetensorsSet set = SafetensorsSet::openFolder(folder);
  const WeightReader read(set, device, dtype);
  const auto E = config.hiddenSize, I = config.intermediateSize, D = config.headDim;
  const auto H = config.heads, K = config.kvHeads, V = config.vocabSize;
  model.embed_ = read("model.embed_tokens.weight", {V, E});
  for (std::int64_t i = 0; i < config.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    Layer layer;
    layer.inputNorm = read(p + "input_layernorm.weight", {E});
    layer.postNorm = read(p + "post_attention_layernorm.weight", {E});
    // q, k, v as one matrix and gate, up as one: one GEMM each per layer.
    layer.qkv =
        torch::cat({read(p + "self_attn.q_proj.weight", {H * D, E}), read(p + "self_attn.k_proj.weight", {K * D, E}),
                    read(p + "self_attn.v_proj.weight", {K * D, E})},
                   0);
    if (config.qkvBias)
      layer.qkvBias =
          torch::cat({read(p + "self_attn.q_proj.bias", {H * D}), read(p + "self_attn.k_proj.bias", {K * D}),
                      read(p + "self_attn.v_proj.bias", {K * D})},
                     0);
    layer.output = read(p + "self_attn.o_proj.weight", {E, H * D});
    if (config.outputBias)
      layer.outputBias = read(p + "self_attn.o_proj.bias", {E});
    if (config.qkNorm) {
      layer.qNorm = read(p + "self_attn.q_norm.weight", {D});
      layer.kNorm = read(p + "self_attn.k_norm.weight", {D});
    }
    layer.gateUp = torch::cat({read(p + "mlp.gate_proj.weight", {I, E}), read(p + "mlp.up_proj.weight", {I, E})}, 0);
    layer.down = read(p + "mlp.down_proj.weight", {E, I});
    if (config.mlpBias) {
      layer.gateUpBias = torch::cat({read(p + "mlp.gate_proj.bias", {I}), read(p + "mlp.up_proj.bias", {I})}, 0);
      layer.downBias = read(p + "mlp.down_proj.bias", {E});
    }
    model.layers_.push_back(std::move(layer));
  }
  model.finalNorm_ = read("model.norm.weight", {E});
  model.lmHead_ = config.tieEmbeddings ? model.embed_ : read("lm_head.weight", {V, E});
  model.buildRotary();
  return model;
}

PolicyModel PolicyModel::random(const ModelConfig &config, torch::Device device, torch::Dtype dtype,
                                std::uint64_t seed) {
  torch::NoGradGuard noGrad;
  torch::manual_seed(seed);
  PolicyModel model(config, device, dtype);
  auto normal = [&](std::vector<std::int64_t> shape) { return (torch::randn(shape) * 0.02).to(device, dtype); };
  // Norm weights near 1 but not 1: a test then sees a norm applied to the wrong tensor.
  auto norm = [&](std::int64_t n) { return (1 + 0.1 * torch::randn({n})).to(device, dtype); };
  const auto E = config.hiddenSize, I = config.intermediateSize, D = config.headDim;
  const auto H = config.heads, K = config.kvHeads, V = config.vocabSize;
  model.embed_ = normal({V, E});
  for (std::int64_t i = 0; i < config.layers; ++i) {
    Layer layer;
    layer.inputNorm = norm(E);
    layer.postNorm = norm(E);
    layer.qkv = normal({(H + 2 * K) * D, E});
    if (config.qkvBias)
      layer.qkvBias = normal({(H + 2 * K) * D});
    layer.output = normal({E, H * D});
    if (config.outputBias)
      layer.outputBias = normal({E});
    if (config.qkNorm) {
      layer.qNorm = norm(D);
      layer.kNorm = norm(D);
    }
    layer.gateUp = normal({2 * I, E});
    layer.down = normal({E, I});
    if (config.mlpBias) {
      layer.gateUpBias = normal({2 * I});
      layer.downBias = normal({E});
    }
    model.layers_.push_back(std::move(layer));
  }
  model.finalNorm_ = norm(E);
  model.lmHead_ = config.tieEmbeddings ? model.embed_ : normal({V, E});
  model.buildRotary();
  return model;
}

void PolicyModel::save(const std::string &folder, std::size_t maxShardBytes) const {
  std::filesystem::create_directories(folder);
  std::vector<std::pair<std::string, torch::Tensor>> named;
  const auto I = config_.intermediateSize, D = config_.headDim, H = config_.heads, K = config_.kvHeads;
  named.emplace_back("model.embed_tokens.weight", embed_);
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer &layer = layers_[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    named.emplace_back(p + "input_layernorm.weight", layer.inputNorm);
    named.emplace_back(p + "post_attention_layernorm.weight", layer.postNorm);
    auto qkv = merged(layer.qkv, layer.qkvLora).split_with_sizes({H * D, K * D, K * D}, 0);
    named.emplace_back(p + "self_attn.q_proj.weight", qkv[0]);
    named.emplace_back(p + "self_attn.k_proj.weight", qkv[1]);
    named.emplace_back(p + "self_attn.v_proj.weight", qkv[2]);
    if (layer.qkvBias.defined()) {
      auto bias = layer.qkvBias.split_with_sizes({H * D, K * D, K * D}, 0);
      named.emplace_back(p + "self_attn.q_proj.bias", bias[0]);
      named.emplace_back(p + "self_attn.k_proj.bias", bias[1]);
      named.emplace_back(p + "self_attn.v_proj.bias", bias[2]);
    }
    named.emplace_back(p + "self_attn.o_proj.weight", merged(layer.output, layer.outputLora));
    if (layer.outputBias.defined())
      named.emplace_back(p + "self_attn.o_proj.bias", layer.outputBias);
    if (layer.qNorm.defined()) {
      named.emplace_back(p + "self_attn.q_norm.weight", layer.qNorm);
      named.emplace_back(p + "self_attn.k_norm.weight", layer.kNorm);
    }
    auto gateUp = merged(layer.gateUp, layer.gateUpLora).split(I, 0);
    named.emplace_back(p + "mlp.gate_proj.weight", gateUp[0]);
    named.emplace_back(p + "mlp.up_proj.weight", gateUp[1]);
    named.emplace_back(p + "mlp.down_proj.weight", merged(layer.down, layer.downLora));
    if (layer.gateUpBias.defined()) {
      auto bias = layer.gateUpBias.split(I, 0);
      named.emplace_back(p + "mlp.gate_proj.bias", bias[0]);
      named.emplace_back(p + "mlp.up_proj.bias", bias[1]);
      named.emplace_back(p + "mlp.down_proj.bias", layer.downBias);
    }
  }
  named.emplace_back("model.norm.weight", finalNorm_);
  if (!config_.tieEmbeddings)
    named.emplace_back("lm_head.weight", lmHead_);

  std::vector<torch::Tensor> host; // kept alive while written
  std::vector<TensorToWrite> tensors;
  for (auto &[name, tensor] : named) {
    host.push_back(tensor.detach().to(torch::kCPU).contiguous());
    const torch::Tensor &t = host.back();
    tensors.push_back({name, fileDtypeOf(t.scalar_type()), t.sizes().vec(), t.data_ptr(),
                       static_cast<std::size_t>(t.numel() * t.element_size())});
  }
  std::size_t total = 0;
  for (const auto &tensor : tensors)
    total += tensor.bytes;
  // Whichever layout is written, the other's files go: the loader prefers an index.
  std::filesystem::remove(folder + "/model.safetensors");
  std::filesystem::remove(folder + "/model.safetensors.index.json");
  for (const auto &entry : std::filesystem::directory_iterator(folder))
    if (entry.path().filename().string().rfind("model-", 0) == 0 && entry.path().extension() == ".safetensors")
      std::filesystem::remove(entry.path());
  if (maxShardBytes == 0 || total <= maxShardBytes) {
    writeSafetensors(folder + "/model.safetensors", tensors, {{"format", "pt"}});
  } else {
    std::vector<std::vector<TensorToWrite>> shards(1);
    std::size_t filled = 0;
    for (const auto &tensor : tensors) { // in order, a new shard when the next tensor would pass the limit
      if (!shards.back().empty() && filled + tensor.bytes > maxShardBytes) {
        shards.emplace_back();
        filled = 0;
      }
      shards.back().push_back(tensor);
      filled += tensor.bytes;
    }
    boost::json::object weightMap;
    for (std::size_t k = 0; k < shards.size(); ++k) {
      char name[64];
      std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", k + 1, shards.size());
      writeSafetensors(folder + "/" + name, shards[k], {{"format", "pt"}});
      for (const auto &tensor : shards[k])
        weightMap[tensor.name] = name;
    }
    const boost::json::object index{{"metadata", boost::json::object{{"total_size", total}}},
                                    {"weight_map", std::move(weightMap)}};
    std::ofstream(folder + "/model.safetensors.index.json") << boost::json::serialize(index) << "\n";
  }
  ModelConfig written = config_;
  written.dtype = dtypeName(dtype_);
  std::ofstream(folder + "/config.json") << written.toJsonText() << "\n";
}

std::vector<torch::Tensor> PolicyModel::parameters() const {
  std::vector<torch::Tensor> out{embed_};
  for (const Layer &layer : layers_)
    for (const torch::Tensor *t :
         {&layer.inputNorm, &layer.qkv, &layer.qkvBias, &layer.output, &layer.outputBias, &layer.qNorm, &layer.kNorm,
          &layer.postNorm, &layer.gateUp, &layer.gateUpBias, &layer.down, &layer.downBias})
      if (t->defined())
        out.push_back(*t);
  out.push_back(finalNorm_);
  if (!config_.tieEmbeddings)
    out.push_back(lmHead_);
  return out;
}

std::int64_t PolicyModel::parameterCount() const {
  std::int64_t n = 0;
  for (const auto &t : parameters())
    n += t.numel();
  return n;
}

void PolicyModel::addLora(std::int64_t rank, double alpha, std::uint64_t seed) {
  if (rank <= 0)
    throw std::invalid_argument("LoRA rank must be positive");
  torch::NoGradGuard noGrad;
  torch::manual_seed(seed);
  loraRank_ = rank;
  loraScale_ = alpha / static_cast<double>(rank);
  auto make = [&](const torch::Tensor &weight) {
    // A as PEFT does (Kaiming-uniform, bound 1 / sqrt(in)), B zero: B A = 0 at the start.
    const auto in = weight.size(1), out = weight.size(0);
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    return Lora{(torch::rand({rank, in}) * 2 * bound - bound).to(device_, dtype_),
                torch::zeros({out, rank}, torch::TensorOptions().dtype(dtype_).device(device_))};
  };
  for (Layer &layer : layers_) {
    layer.qkvLora = make(layer.qkv);
    layer.outputLora = make(layer.output);
    layer.gateUpLora = make(layer.gateUp);
    layer.downLora = make(layer.down);
  }
}

std::vector<torch::Tensor> PolicyModel::loraParameters() const {
  std::vector<torch::Tensor> out;
  for (const Layer &layer : layers_)
    for (const Lora *lora : {&layer.qkvLora, &layer.outputLora, &layer.gateUpLora, &layer.downLora})
      if (lora->a.defined()) {
        out.push_back(lora->a);
        out.push_back(lora->b);
      }
  return out;
}

void PolicyModel::saveLora(const std::string &path) const {
  std::vector<torch::Tensor> host;
  std::vector<TensorToWrite> tensors;
  const char *names[] = {"qkv", "o", "gate_up", "down"};
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Lora *loras[] = {&layers_[i].qkvLora, &layers_[i].outputLora, &layers_[i].gateUpLora, &layers_[i].downLora};
    for (int k = 0; k < 4; ++k)
      for (auto [suffix, tensor] : {std::pair{".a", &loras[k]->a}, {".b", &loras[k]->b}}) {
        host.push_back(tensor->detach().to(torch::kCPU, torch::kFloat32).contiguous());
        tensors.push_back({"lora." + std::to_string(i) + "." + names[k] + suffix, TensorDtype::F32,
                           host.back().sizes().vec(), host.back().data_ptr(),
                           static_cast<std::size_t>(host.back().numel()) * sizeof(float)});
      }
  }
  writeSafetensors(path, tensors,
                   {{"lora_rank", std::to_string(loraRank_)}, {"lora_scale", std::to_string(loraScale_)}});
}

void PolicyModel::loadLora(const std::string &path) {
  torch::NoGradGuard noGrad;
  auto file = SafetensorsFile::open(path);
  const char *names[] = {"qkv", "o", "gate_up", "down"};
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    Lora *loras[] = {&layers_[i].qkvLora, &layers_[i].outputLora, &layers_[i].gateUpLora, &layers_[i].downLora};
    for (int k = 0; k < 4; ++k)
      for (auto [suffix, tensor] : {std::pair{".a", &loras[k]->a}, {".b", &loras[k]->b}}) {
        const std::string name = "lora." + std::to_string(i) + "." + names[k] + suffix;
        const TensorView &view = file->at(name);
        if (!tensor->defined() || view.shape != tensor->sizes().vec() || view.dtype != TensorDtype::F32)
          throw std::runtime_error(path + ": tensor '" + name + "' does not fit this model's adapters");
        torch::Tensor host = torch::empty(view.shape, torch::kFloat32);
        std::memcpy(host.data_ptr(), view.data, view.bytes);
        tensor->copy_(host);
      }
  }
}

KvCache PolicyModel::makeCache(std::int64_t batch, std::int64_t capacity) const {
  if (capacity > config_.maxPositions)
    throw std::runtime_error("a sequence of " + std::to_string(capacity) + " tokens is longer than the model's " +
                             std::to_string(config_.maxPositions) + " positions");
  KvCache cache;
  cache.capacity = capacity;
  auto options = torch::TensorOptions().dtype(dtype_).device(device_);
  for (std::int64_t i = 0; i < config_.layers; ++i)
    cache.keysAndValues.push_back(torch::zeros({2, batch, config_.kvHeads, capacity, config_.headDim}, options));
  return cache;
}

// As transformers: the mean square in f32, the scaled value back in the
// input's dtype, then the weight. at::rms_norm exists from LibTorch 2.4; on
// CUDA in 2.11 (the GPU machine's) it is one fused kernel that rounds once
// instead of twice in bf16, as the fused decode kernels do.
torch::Tensor PolicyModel::rmsNorm(const torch::Tensor &x, const torch::Tensor &weight) const {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::rms_norm(x, {x.size(-1)}, weight, config_.rmsNormEps);
#else
  auto f = x.to(torch::kFloat32);
  auto scaled = f * torch::rsqrt(f.pow(2).mean(-1, true) + config_.rmsNormEps);
  return weight * scaled.to(x.scalar_type());
#endif
}

// x W^T + b, plus the adapter's scale * (x A^T) B^T where there is one.
torch::Tensor PolicyModel::project(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias,
                                   const Lora &lora) const {
  auto y = torch::linear(x, weight, bias);
  if (lora.a.defined())
    y = y + loraScale_ * torch::linear(torch::linear(x, lora.a), lora.b);
  return y;
}

torch::Tensor PolicyModel::merged(const torch::Tensor &weight, const Lora &lora) const {
  if (!lora.a.defined())
    return weight;
  return (weight.to(torch::kFloat32) +
          loraScale_ * torch::matmul(lora.b.to(torch::kFloat32), lora.a.to(torch::kFloat32)))
      .to(weight.scalar_type());
}

// y = x W^T + residual: the residual added in the GEMM's epilogue. Without
// autograd (sampling) the sum goes into the residual itself: an out-of-place
// addmm copies it into its result first, one kernel more per call. Callers
// pass a residual they no longer need.
torch::Tensor PolicyModel::linearPlus(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias,
                                      const Lora &lora, const torch::Tensor &residual) const {
  if (bias.defined() || lora.a.defined())
    return residual + project(x, weight, bias, lora);
  auto flatX = x.reshape({-1, x.size(-1)});
  if (!torch::GradMode::is_enabled() && residual.is_contiguous()) {
    auto flat = residual.view({-1, residual.size(-1)});
    flat.addmm_(flatX, weight.t());
    return residual;
  }
  return torch::addmm(residual.reshape({-1, residual.size(-1)}), flatX, weight.t()).view(residual.sizes());
}

PolicyModel::LayerInputs PolicyModel::layerInputs(const torch::Tensor &positions, const torch::Tensor &mask) const {
  const auto B = positions.size(0), T = positions.size(1), S = mask.size(-1);
  const auto G = config_.heads / config_.kvHeads, D = config_.headDim;
  LayerInputs inputs;
  auto table = rotaryTable_.index_select(0, positions.reshape({-1})).view({B, T, 2, 1, D});
  inputs.cos = table.select(2, 0);
  inputs.sin = table.select(2, 1);
  // Row g * T + t of a kv head's grouped queries is query t of its head g.
  auto grouped = T == 1 ? mask.view({B, 1, 1, S}) : mask.expand({B, 1, G, T, S}).reshape({B, 1, G * T, S});
  // What SDPA does with a bool mask (where(!mask, -inf, 0) in the query's
  // dtype), once; its rows 16-element aligned, as the memory-efficient kernel
  // wants them (SDPA pads an unaligned mask in every call).
  std::vector<std::int64_t> padded = grouped.sizes().vec();
  padded.back() = (S + 15) / 16 * 16;
  inputs.mask = torch::zeros(padded, torch::TensorOptions().dtype(dtype_).device(grouped.device())).narrow(-1, 0, S);
  inputs.mask.masked_fill_(grouped.logical_not(), -std::numeric_limits<double>::infinity());
  if (T == 1) {
    // rotate(x) = x * cos + roll(x, D/2) * signedSin = x @ (diag(cos) + shift diag(signedSin)).
    const auto H = config_.heads, K = config_.kvHeads;
    auto turn = torch::diag_embed(inputs.cos.reshape({B, D})) + rotaryShift_ * inputs.sin.reshape({B, 1, D});
    auto identity = torch::eye(D, torch::TensorOptions().dtype(dtype_).device(grouped.device())).expand({B, K, D, D});
    inputs.rotation = torch::cat({turn.unsqueeze(1).expand({B, H + K, D, D}), identity}, 1).reshape({-1, D, D});
  }
  return inputs;
}

torch::Tensor PolicyModel::layerForward(const Layer &layer, const torch::Tensor &hidden, const LayerInputs &inputs,
                                        KvCache *cache, std::int64_t layerIndex, const torch::Tensor *slots,
                                        std::int64_t keyLength) const {
  const auto B = hidden.size(0), T = hidden.size(1);
  const auto H = config_.heads, K = config_.kvHeads, D = config_.headDim, G = H / K;
  auto qkv =
      project(rmsNorm(hidden, layer.inputNorm), layer.qkv, layer.qkvBias, layer.qkvLora).view({B, T, H + 2 * K, D});
  torch::Tensor q, k, values;
  torch::Tensor *both = cache ? &cache->keysAndValues[layerIndex] : nullptr; // [2, B, K, S, D]
  if (inputs.rotation.defined()) {
    // A decode step: q, k and v rotated (v by the identity) in one batched
    // product, this token's keys and values written in one copy.
    auto heads = config_.qkNorm ? torch::cat({rmsNorm(qkv.narrow(2, 0, H), layer.qNorm),
                                              rmsNorm(qkv.narrow(2, H, K), layer.kNorm), qkv.narrow(2, H + K, K)},
                                             2)
                                : qkv;
    auto rotated = torch::bmm(heads.reshape({-1, 1, D}), inputs.rotation).view({B, 1, H + 2 * K, D});
    q = rotated.narrow(2, 0, H).transpose(1, 2);
    k = rotated.narrow(2, H, K).transpose(1, 2);
    values = rotated.narrow(2, H + K, K).transpose(1, 2);
    if (both)
      both->index_copy_(3, *slots, rotated.narrow(2, H, 2 * K).view({B, 1, 2, K, D}).permute({2, 0, 3, 1, 4}));
  } else {
    auto qk = qkv.narrow(2, 0, H + K);
    if (config_.qkNorm)
      qk = torch::cat({rmsNorm(qk.narrow(2, 0, H), layer.qNorm), rmsNorm(qk.narrow(2, H, K), layer.kNorm)}, 2);
    // Rotary embeddings on q and k at once: [B, T, H + K, D] against [B, T, 1, D],
    // in f32 and rounded once, as the decode step's batched product does: the
    // trainer's forward and the sampler then agree in bf16 too (a top-p cut
    // is where a last-bit difference shows).
    auto wide = qk.to(torch::kFloat32);
    qk = torch::addcmul(wide * inputs.cos.to(torch::kFloat32), wide.roll(D / 2, -1), inputs.sin.to(torch::kFloat32))
             .to(qkv.scalar_type());
    q = qk.narrow(2, 0, H).transpose(1, 2); // [B, H, T, D]
    k = qk.narrow(2, H, K).transpose(1, 2); // [B, K, T, D]
    values = qkv.narrow(2, H + K, K).transpose(1, 2);
    if (both) {
      both->select(0, 0).index_copy_(2, *slots, k);
      both->select(0, 1).index_copy_(2, *slots, values);
    }
  }
  torch::Tensor keys = k;
  if (both) {
    keys = both->select(0, 0).narrow(2, 0, keyLength);
    values = both->select(0, 1).narrow(2, 0, keyLength);
  }
  // Grouped-query attention without copying the keys: the G query heads of a
  // kv head are one [G*T, D] block of queries against that head's [S, D] keys.
  auto grouped = q.reshape({B, K, G * T, D});
#if TORCH_VERSION_MAJOR >= 2
  auto attended = at::scaled_dot_product_attention(grouped, keys, values, inputs.mask);
#else
  auto scores = torch::matmul(grouped * (1.0 / std::sqrt(static_cast<double>(D))), keys.transpose(-1, -2));
  scores = scores + inputs.mask;
  auto attended = torch::matmul(torch::softmax(scores, -1, torch::kFloat32).to(hidden.scalar_type()), values);
#endif
  // reshape, not view: SDPA's kernels may return a transposed (non-contiguous) result.
  auto heads = attended.reshape({B, H, T, D}).transpose(1, 2).reshape({B, T, H * D});
  auto out = linearPlus(heads, layer.output, layer.outputBias, layer.outputLora, hidden);
  auto gateUp = project(rmsNorm(out, layer.postNorm), layer.gateUp, layer.gateUpBias, layer.gateUpLora).chunk(2, -1);
  return linearPlus(torch::silu(gateUp[0]) * gateUp[1], layer.down, layer.downBias, layer.downLora, out);
}

torch::Tensor PolicyModel::logits(const torch::Tensor &hidden) const {
  return torch::linear(rmsNorm(hidden, finalNorm_), lmHead_).to(torch::kFloat32);
}

namespace {

// [B, 1, 1, T, S] bool: query column t (slot begin + t) sees key slot s when
// the key is a real token no later than the query; every query sees itself
// (a padding row then has a finite, ignored result).
torch::Tensor attentionMask(const torch::Tensor &firstSlot, std::int64_t begin, std::int64_t length,
                            std::int64_t keys) {
  auto options = torch::TensorOptions().dtype(torch::kInt64).device(firstSlot.device());
  auto query = torch::arange(begin, begin + length, options).view({1, length, 1});
  auto key = torch::arange(keys, options).view({1, 1, keys});
  auto real = key >= firstSlot.view({-1, 1, 1});
  auto mask = (real & (key <= query)) | (key == query);
  return mask.unsqueeze(1).unsqueeze(1);
}

} // namespace

torch::Tensor PolicyModel::forward(const torch::Tensor &ids, const torch::Tensor &firstSlot) const {
  const auto T = ids.size(1);
  const LayerInputs inputs = layerInputs(positionsFor(firstSlot, 0, T), attentionMask(firstSlot, 0, T, T));
  auto hidden = embed_.index_select(0, ids.reshape({-1})).view({ids.size(0), T, -1});
  for (std::size_t i = 0; i < layers_.size(); ++i)
    hidden = layerForward(layers_[i], hidden, inputs, nullptr, static_cast<std::int64_t>(i), nullptr, 0);
  return logits(hidden);
}

torch::Tensor PolicyModel::prefill(const torch::Tensor &ids, const torch::Tensor &firstSlot, KvCache &cache) const {
  const auto T = ids.size(1);
  if (T > cache.capacity)
    throw std::runtime_error("the prompt (" + std::to_string(T) + " tokens) does not fit the cache");
  const LayerInputs inputs = layerInputs(positionsFor(firstSlot, 0, T), attentionMask(firstSlot, 0, T, T));
  auto slots = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(ids.device()));
  auto hidden = embed_.index_select(0, ids.reshape({-1})).view({ids.size(0), T, -1});
  for (std::size_t i = 0; i < layers_.size(); ++i)
    hidden = layerForward(layers_[i], hidden, inputs, &cache, static_cast<std::int64_t>(i), &slots, T);
  return logits(hidden.select(1, T - 1));
}

bool PolicyModel::fusedDecodeFits(std::int64_t batch) const {
#ifdef CUDAPERF_FUSED_DECODE
  const ModelConfig &c = config_;
  const auto D = c.headDim, H = c.heads, K = c.kvHeads;
  if (!device_.is_cuda())
    return false;
  const c10::cuda::CUDAGuard onDevice(device_);
  return decode::kernelsRunHere() && (dtype_ == torch::kBFloat16 || dtype_ == torch::kFloat16) && !hasLora() &&
         !c.outputBias && !c.mlpBias && batch > 0 && batch <= decode::kMaxRows && (D == 64 || D == 128) && K > 0 &&
         H % K == 0 && H / K <= decode::kMaxGroupSize && c.hiddenSize % 32 == 0 && (H * D) % 32 == 0 &&
         c.intermediateSize % 32 == 0;
#else
  (void)batch;
  return false;
#endif
}

torch::Tensor PolicyModel::decodeFused(const torch::Tensor &ids, const torch::Tensor &slot,
                                       const torch::Tensor &firstSlot, KvCache &cache) const {
#ifdef CUDAPERF_FUSED_DECODE
  const auto B = ids.size(0), S = cache.capacity;
  const auto I = config_.intermediateSize, D = config_.headDim, H = config_.heads, K = config_.kvHeads;
  const auto element = dtype_ == torch::kBFloat16 ? decode::Element::BF16 : decode::Element::F16;
  const c10::cuda::CUDAGuard onDevice(device_); // the kernels launch on the current device
  void *stream = c10::cuda::getCurrentCUDAStream(device_.index()).stream();
  if (slot.scalar_type() != torch::kInt64 || firstSlot.scalar_type() != torch::kInt64)
    throw std::invalid_argument("decode: slot and firstSlot are int64 tensors");
  const torch::Tensor first = firstSlot.contiguous();
  if (cache.batch() != B || static_cast<std::int64_t>(cache.keysAndValues.size()) != config_.layers)
    throw std::invalid_argument("decode: the cache holds " + std::to_string(cache.batch()) + " rows, the step " +
                                std::to_string(B));
  for (const auto &layer : cache.keysAndValues)
    if (!layer.is_contiguous() || layer.size(3) != S)
      throw std::invalid_argument("decode: a cache layer is not a contiguous [2, B, kvH, capacity, D] tensor");
  if (!cache.attentionCounters.defined()) {
    // Outside a graph capture: the sampler's first step is eager.
    auto floats = decode::attentionPartialFloats(B, H, K, D, S);
    cache.attentionPartials = torch::empty({static_cast<std::int64_t>(floats)},
                                           torch::TensorOptions().dtype(torch::kFloat32).device(device_));
    cache.attentionCounters = torch::zeros({B * K}, torch::TensorOptions().dtype(torch::kInt32).device(device_));
  }
  auto options = torch::TensorOptions().dtype(dtype_).device(device_);
  auto hidden = embed_.index_select(0, ids.reshape({-1})); // [B, E]: the residual stream, updated in place
  auto qkv = torch::empty({B, (H + 2 * K) * D}, options);
  auto attended = torch::empty({B, H * D}, options);
  auto activated = torch::empty({B, I}, options);
  // Each kernel pulls a later kernel's weights into L2 (DecodeKernels.h): the
  // attention, light on DRAM, those of gate/up; qkv those of o; o those of
  // down; gate/up the next layer's qkv.
  auto weightsOf = [](const torch::Tensor &t) { return decode::Prefetch{t.data_ptr(), t.nbytes()}; };
  auto project = [&](decode::Prologue prologue, decode::Epilogue epilogue, const torch::Tensor &x,
                     const torch::Tensor &weight, const torch::Tensor &bias, const torch::Tensor &norm,
                     torch::Tensor &out, decode::Prefetch prefetch) {
    decode::ProjectArgs args;
    args.element = element;
    args.prologue = prologue;
    args.epilogue = epilogue;
    args.x = x.data_ptr();
    args.weight = weight.data_ptr();
    args.bias = bias.defined() ? bias.data_ptr() : nullptr;
    args.normWeight = norm.defined() ? norm.data_ptr() : nullptr;
    args.eps = static_cast<float>(config_.rmsNormEps);
    args.out = out.data_ptr();
    args.rows = static_cast<int>(B);
    args.inFeatures = static_cast<int>(x.size(1));
    args.outFeatures = static_cast<int>(out.size(1));
    args.prefetch[0] = prefetch;
    decode::projectRows(args, stream);
  };
  const torch::Tensor none;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer &layer = layers_[i];
    const decode::Prefetch nextQkv = i + 1 < layers_.size() ? weightsOf(layers_[i + 1].qkv) : decode::Prefetch{};
    project(decode::Prologue::RmsNorm, decode::Epilogue::Store, hidden, layer.qkv, layer.qkvBias, layer.inputNorm, qkv,
            weightsOf(layer.output));
    decode::AttendArgs attend;
    attend.element = element;
    attend.qkv = qkv.data_ptr();
    attend.cache = cache.keysAndValues[i].data_ptr();
    attend.slot = slot.data_ptr<std::int64_t>();
    attend.first = first.data_ptr<std::int64_t>();
    attend.rotary = rotaryTable_.data_ptr();
    attend.qNorm = layer.qNorm.defined() ? layer.qNorm.data_ptr() : nullptr;
    attend.kNorm = layer.kNorm.defined() ? layer.kNorm.data_ptr() : nullptr;
    attend.eps = static_cast<float>(config_.rmsNormEps);
    attend.partials = cache.attentionPartials.data_ptr<float>();
    attend.counters = cache.attentionCounters.data_ptr<std::int32_t>();
    attend.out = attended.data_ptr();
    attend.batch = static_cast<int>(B);
    attend.heads = static_cast<int>(H);
    attend.kvHeads = static_cast<int>(K);
    attend.headDim = static_cast<int>(D);
    attend.capacity = static_cast<int>(S);
    attend.prefetch[0] = weightsOf(layer.gateUp);
    decode::attendOneToken(attend, stream);
    project(decode::Prologue::Plain, decode::Epilogue::AddInPlace, attended, layer.output, none, none, hidden,
            weightsOf(layer.down));
    project(decode::Prologue::RmsNorm, decode::Epilogue::SiluGate, hidden, layer.gateUp, none, layer.postNorm,
            activated, nextQkv);
    project(decode::Prologue::Plain, decode::Epilogue::AddInPlace, activated, layer.down, none, none, hidden, {});
  }
  // The head in one kernel (final norm, logits, f32) where it takes the shape; else ATen's three.
  decode::LogitsArgs head;
  head.element = element;
  head.x = hidden.data_ptr();
  head.normWeight = finalNorm_.data_ptr();
  head.eps = static_cast<float>(config_.rmsNormEps);
  head.weight = lmHead_.data_ptr();
  head.out = reinterpret_cast<float *>(16); // aligned, non-null: logitsFit asks for the shape first
  head.rows = static_cast<int>(B);
  head.inFeatures = static_cast<int>(hidden.size(1));
  head.vocab = static_cast<int>(config_.vocabSize);
  if (!lmHead_.is_contiguous() || lmHead_.size(0) != config_.vocabSize || !decode::logitsFit(head))
    return logits(hidden);
  auto out = torch::empty({B, config_.vocabSize}, torch::TensorOptions().dtype(torch::kFloat32).device(device_));
  head.out = out.data_ptr<float>();
  decode::projectLogits(head, stream);
  return out;
#else
  (void)ids, (void)slot, (void)firstSlot, (void)cache;
  throw std::logic_error("decodeFused: this build has no fused decode kernels");
#endif
}

torch::Tensor PolicyModel::decode(const torch::Tensor &ids, const torch::Tensor &slot, const torch::Tensor &firstSlot,
                                  KvCache &cache, DecodePath path) const {
  if (path == DecodePath::Fastest && fusedDecodeFits(ids.size(0)))
    return decodeFused(ids, slot, firstSlot, cache);
  const auto B = ids.size(0), S = cache.capacity;
  // Everything from device tensors: no host value, so the step can be a CUDA graph.
  auto positions = (slot.view({1, 1}) - firstSlot.view({B, 1})).clamp_min(0);
  auto options = torch::TensorOptions().dtype(torch::kInt64).device(ids.device());
  auto key = torch::arange(S, options).view({1, S});
  auto mask = ((key >= firstSlot.view({B, 1})) & (key <= slot.view({1, 1}))) | (key == slot.view({1, 1}));
  const LayerInputs inputs = layerInputs(positions, mask.view({B, 1, 1, 1, S}));
  auto hidden = embed_.index_select(0, ids.reshape({-1})).view({B, 1, -1});
  const torch::Tensor slots = slot.view({1});
  for (std::size_t i = 0; i < layers_.size(); ++i)
    hidden = layerForward(layers_[i], hidden, inputs, &cache, static_cast<std::int64_t>(i), &slots, S);
  return logits(hidden.select(1, 0));
}

} // namespace cudaperf::trainer
