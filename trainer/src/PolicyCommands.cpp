// cudaperf-train generate | logits | sample-check: the policy model from the
// command line. generate is the smoke test a user runs on a checkpoint;
// logits and sample-check are what scripts/gpu-test-policy and
// scripts/bench-generate compare against transformers.
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/PolicyModel.h"
#include "cudaperf/trainer/Safetensors.h"
#include "cudaperf/trainer/Sampler.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <boost/json.hpp>

#ifdef CUDAPERF_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace json = boost::json;

namespace cudaperf {

namespace {

using trainer::PolicyModel;
using trainer::SamplingOptions;

torch::Device deviceFlag(const Flags &flags) { return trainer::deviceNamed(textFlag(flags, "device", "cpu")); }

torch::Dtype dtypeFlag(const Flags &flags, torch::Device device) {
  return trainer::dtypeNamed(textFlag(flags, "dtype", device.is_cuda() ? "bf16" : "f32"));
}

std::int64_t integerFlag(const Flags &flags, const std::string &name, std::int64_t fallback) {
  const double value = numberFlag(flags, name, static_cast<double>(fallback));
  if (value != std::floor(value))
    throw std::invalid_argument("--" + name + ": expected an integer");
  return static_cast<std::int64_t>(value);
}

SamplingOptions samplingFlags(const Flags &flags, const trainer::ModelConfig &config, double defaultTemperature) {
  SamplingOptions options;
  options.temperature = numberFlag(flags, "temperature", defaultTemperature);
  options.topP = numberFlag(flags, "top-p", 1.0);
  options.topK = integerFlag(flags, "top-k", 0);
  options.maxNewTokens = integerFlag(flags, "max-new-tokens", 128);
  options.seed = static_cast<std::uint64_t>(integerFlag(flags, "seed", 0));
  options.cudaGraph = !switchFlag(flags, "no-cuda-graph");
  // --no-fused-decode: LibTorch's operators for the whole step; --no-fused-sampling: for the draw and bookkeeping.
  options.fusedDecode = !switchFlag(flags, "no-fused-decode");
  options.fusedSampling = options.fusedDecode && !switchFlag(flags, "no-fused-sampling");
  if (options.temperature < 0 || options.topP <= 0 || options.topP > 1 || options.topK < 0 || options.maxNewTokens <= 0)
    throw std::invalid_argument("sampling: temperature >= 0, 0 < top-p <= 1, top-k >= 0, max-new-tokens > 0");
  if (!switchFlag(flags, "ignore-eos"))
    options.stopIds = config.eosTokenIds;
  if (!config.eosTokenIds.empty())
    options.padId = config.eosTokenIds.front();
  return options;
}

std::vector<std::vector<std::int64_t>> idListsFromFile(const std::string &path) {
  json::value parsed = json::parse(cudaperf::readTextFile(path));
  std::vector<std::vector<std::int64_t>> out;
  for (const auto &row : parsed.as_array()) {
    out.emplace_back();
    for (const auto &id : row.as_array())
      out.back().push_back(id.to_number<std::int64_t>());
  }
  return out;
}

json::array toJson(const std::vector<std::int64_t> &ids) {
  json::array out;
  for (auto id : ids)
    out.push_back(id);
  return out;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::int64_t cudaPeakBytes(torch::Device device) {
#ifdef CUDAPERF_TORCH_CUDA
  if (device.is_cuda())
    return c10::cuda::CUDACachingAllocator::getDeviceStats(device.index()).allocated_bytes[0].peak;
#endif
  (void)device;
  return 0;
}

} // namespace

// A model folder written again: another dtype, and shards of at most
// --max-shard-mb (what a transfer with a per-file limit needs), with its
// tokenizer.json. The folder must not exist yet.
int convertCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"model", "out", "dtype", "max-shard-mb"});
  const std::string folder = textFlag(flags, "model"), out = textFlag(flags, "out");
  if (folder.empty() || out.empty())
    throw std::invalid_argument("--model DIR and --out DIR are required");
  if (std::filesystem::exists(out))
    throw std::invalid_argument("--out " + out + " exists");
  const double shardMb = numberFlag(flags, "max-shard-mb", 0);
  if (!(shardMb >= 0))
    throw std::invalid_argument("--max-shard-mb must be a number of MiB, 0 for one file");
  const PolicyModel model = PolicyModel::load(folder, torch::Device(torch::kCPU), dtypeFlag(flags, torch::kCPU));
  model.save(out, static_cast<std::size_t>(shardMb * (1 << 20)));
  if (std::filesystem::exists(std::filesystem::path(folder) / "tokenizer.json"))
    std::filesystem::copy_file(std::filesystem::path(folder) / "tokenizer.json",
                               std::filesystem::path(out) / "tokenizer.json");
  std::size_t files = 0, largest = 0;
  for (const auto &entry : std::filesystem::directory_iterator(out)) {
    ++files;
    largest = std::max<std::size_t>(largest, std::filesystem::file_size(entry.path()));
  }
  std::cout << json::serialize(json::object{{"parameters", model.parameterCount()},
                                            {"dtype", textFlag(flags, "dtype", "f32")},
                                            {"files", files},
                                            {"largest_file_bytes", largest}})
            << "\n";
  return 0;
}

int generateCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(
      args, {"model", "prompt", "max-new-tokens", "temperature", "top-p", "top-k", "seed", "device", "dtype"},
      {"ids", "chat", "ignore-eos", "no-cuda-graph", "no-fused-decode", "no-fused-sampling"});
  const std::string folder = textFlag(flags, "model");
  if (folder.empty() || !flags.count("prompt"))
    throw std::invalid_argument("--model DIR and --prompt TEXT are required");
  const torch::Device device = deviceFlag(flags);
  const trainer::Tokenizer tokenizer = trainer::Tokenizer::fromFolder(folder);
  const PolicyModel model = PolicyModel::load(folder, device, dtypeFlag(flags, device));
  if (tokenizer.normalizerSkipped())
    std::cerr << "cudaperf-train: warning: the tokenizer asks for NFC, this build has no ICU: text used as it is\n";
  std::string prompt = textFlag(flags, "prompt");
  if (switchFlag(flags, "chat"))
    prompt = trainer::Tokenizer::chatPrompt({{"user", prompt}});
  const auto ids32 = tokenizer.encode(prompt);
  const std::vector<std::int64_t> promptIds(ids32.begin(), ids32.end());
  if (promptIds.empty())
    throw std::invalid_argument("--prompt: encodes to no tokens");
  for (auto id : promptIds)
    if (id >= model.config().vocabSize)
      throw std::invalid_argument("the tokenizer gives id " + std::to_string(id) + ", beyond the model's vocab_size " +
                                  std::to_string(model.config().vocabSize));
  SamplingOptions options = samplingFlags(flags, model.config(), 0.0);
  const trainer::Sampler sampler(model, &tokenizer);
  const auto result = sampler.generate({promptIds}, 1, options);
  const auto &completion = result.completions.front();
  std::cout << completion.text << "\n";
  if (switchFlag(flags, "ids"))
    std::cout << json::serialize(
                     json::object{{"prompt_ids", toJson(promptIds)}, {"completion_ids", toJson(completion.ids)}})
              << "\n";
  return 0;
}

// Logits of each row of --ids (a JSON array of id arrays, left-padded into
// one batch) into a safetensors file: "logits" [B, T, V] f32, "first_slot" [B].
int logitsCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"model", "ids", "out", "device", "dtype"});
  const std::string folder = textFlag(flags, "model"), out = textFlag(flags, "out");
  if (folder.empty() || out.empty() || !flags.count("ids"))
    throw std::invalid_argument("--model DIR, --ids FILE.json and --out FILE.safetensors are required");
  const torch::Device device = deviceFlag(flags);
  auto start = std::chrono::steady_clock::now();
  const PolicyModel model = PolicyModel::load(folder, device, dtypeFlag(flags, device));
  const double loadSeconds = since(start);
  const auto rows = idListsFromFile(textFlag(flags, "ids"));
  std::int64_t longest = 0;
  for (const auto &row : rows)
    longest = std::max<std::int64_t>(longest, row.size());
  const auto B = static_cast<std::int64_t>(rows.size());
  std::vector<std::int64_t> flat(B * longest, 0), first(B);
  for (std::int64_t b = 0; b < B; ++b) {
    first[b] = longest - static_cast<std::int64_t>(rows[b].size());
    std::copy(rows[b].begin(), rows[b].end(), flat.begin() + b * longest + first[b]);
  }
  torch::NoGradGuard noGrad;
  auto options = torch::TensorOptions().dtype(torch::kInt64);
  auto ids = torch::from_blob(flat.data(), {B, longest}, options).to(device);
  auto firstSlot = torch::from_blob(first.data(), {B}, options).to(device);
  start = std::chrono::steady_clock::now();
  torch::Tensor logits = model.forward(ids, firstSlot);
  if (device.is_cuda())
    torch::cuda::synchronize();
  const double forwardSeconds = since(start);
  logits = logits.to(torch::kCPU).contiguous();
  trainer::writeSafetensors(
      out, {{"logits", trainer::TensorDtype::F32, logits.sizes().vec(), logits.data_ptr(),
             static_cast<std::size_t>(logits.numel()) * sizeof(float)},
            {"first_slot", trainer::TensorDtype::I64, {B}, first.data(), first.size() * sizeof(std::int64_t)}});
  std::cout << json::serialize(json::object{{"load_seconds", loadSeconds},
                                            {"forward_seconds", forwardSeconds},
                                            {"parameters", model.parameterCount()},
                                            {"cuda_peak_bytes", cudaPeakBytes(device)}})
            << "\n";
  return 0;
}

// Samples G completions of each prompt of --prompts (a JSON array of id
// arrays), then recomputes every token's log-prob with one full forward (the
// trainer's path): throughput and the sampler/trainer agreement as one JSON line.
int sampleCheckCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(
      args,
      {"model", "prompts", "group", "max-new-tokens", "temperature", "top-p", "top-k", "seed", "device", "dtype",
       "completions-out"},
      {"ignore-eos", "no-cuda-graph", "no-fused-decode", "no-fused-sampling", "no-recompute", "record-check"});
  const std::string folder = textFlag(flags, "model");
  if (folder.empty() || !flags.count("prompts"))
    throw std::invalid_argument("--model DIR and --prompts FILE.json are required");
  const torch::Device device = deviceFlag(flags);
  const PolicyModel model = PolicyModel::load(folder, device, dtypeFlag(flags, device));
  const auto prompts = idListsFromFile(textFlag(flags, "prompts"));
  const std::int64_t group = integerFlag(flags, "group", 4);
  SamplingOptions options = samplingFlags(flags, model.config(), 1.0);
  const trainer::Sampler sampler(model);
  // One untimed run first: CUDA's and cuBLAS's one-time set-up is not the sampler's cost.
  if (device.is_cuda()) {
    SamplingOptions warm = options;
    warm.maxNewTokens = std::min<std::int64_t>(options.maxNewTokens, 32);
    sampler.generate(prompts, group, warm);
  }
  const auto result = sampler.generate(prompts, group, options);
  std::int64_t tokens = 0;
  for (const auto &completion : result.completions)
    tokens += static_cast<std::int64_t>(completion.ids.size());
  json::object out{{"prompts", static_cast<std::int64_t>(prompts.size())},
                   {"group", group},
                   {"tokens", tokens},
                   {"prefill_seconds", result.prefillSeconds},
                   {"decode_seconds", result.decodeSeconds},
                   {"decode_steps", result.decodeSteps},
                   {"decode_step_ms", result.decodeSteps ? 1000 * result.decodeSeconds / result.decodeSteps : 0.0},
                   {"tokens_per_second", tokens / std::max(1e-9, result.prefillSeconds + result.decodeSeconds)},
                   {"cuda_graph", result.usedCudaGraph},
                   {"fused_decode", result.usedFusedDecode},
                   {"fused_sampling", result.usedFusedSampling},
                   {"parameters", model.parameterCount()},
                   {"cuda_peak_bytes", cudaPeakBytes(device)}};
  if (!switchFlag(flags, "no-recompute") && options.temperature > 0) {
    std::vector<std::vector<std::int64_t>> rowsPrompts, rowsCompletions;
    for (std::size_t i = 0; i < result.completions.size(); ++i) {
      rowsPrompts.push_back(prompts[i / static_cast<std::size_t>(group)]);
      rowsCompletions.push_back(result.completions[i].ids);
    }
    const auto recomputed = trainer::completionLogProbs(model, rowsPrompts, rowsCompletions, options);
    double sum = 0, worst = 0;
    std::int64_t n = 0, cut = 0;
    for (std::size_t i = 0; i < recomputed.size(); ++i)
      for (std::size_t j = 0; j < recomputed[i].size(); ++j) {
        // A token the forward's top-p/top-k removed: the two cuts fell on either
        // side of it (logits a rounding apart). Counted on its own: its gap is
        // infinite and would be the whole mean.
        if (std::isinf(recomputed[i][j])) {
          ++cut;
          continue;
        }
        const double gap = std::abs(static_cast<double>(recomputed[i][j]) - result.completions[i].logProbs[j]);
        sum += std::exp(gap);
        worst = std::max(worst, gap);
        ++n;
      }
    // mean exp|logp_forward - logp_sample| over the tokens the forward keeps
    out["logprob_agreement"] = n ? sum / static_cast<double>(n) : 1.0;
    out["logprob_max_abs_diff"] = worst;
    out["logprob_removed_by_forward"] = cut;
  }
  if (result.usedFusedDecode) {
    const auto paths = trainer::compareDecodePaths(model, prompts, group, 16, options.padId);
    out["decode_paths"] = json::object{{"steps", paths.steps},
                                       {"rows", paths.rows},
                                       {"same_argmax", paths.sameArgmax},
                                       {"max_logit_diff", paths.maxLogitDiff},
                                       {"max_abs_logit", paths.maxAbsLogit},
                                       {"max_cache_diff", paths.maxCacheDiff},
                                       {"max_abs_cache", paths.maxAbsCache}};
  }
  if (result.usedFusedSampling && switchFlag(flags, "record-check")) {
    SamplingOptions check = options;
    check.maxNewTokens = std::min<std::int64_t>(options.maxNewTokens, 48);
    const auto records = trainer::compareRecordPaths(sampler, prompts, group, check);
    out["record_paths"] = json::object{{"completions", records.completions},
                                       {"same_completions", records.sameCompletions},
                                       {"stopped_early", records.stoppedEarly},
                                       {"same_steps", records.sameSteps}};
  }
  if (device.is_cuda() && options.temperature > 0 && options.fusedSampling) {
    // The fused draw against the ATen one on logits of the model's vocabulary
    // spread as a model's are (a few ids far above the rest).
    auto generator = at::detail::createCPUGenerator(options.seed + 1);
    auto logits = at::randn({16, model.config().vocabSize}, generator, torch::kFloat32) * 2.5;
    logits = logits.to(device).contiguous();
    const auto draws = trainer::compareDrawPaths(logits, options, 64, options.seed + 2);
    if (draws.fused)
      out["draw_paths"] = json::object{
          {"draws", draws.draws}, {"same_tokens", draws.sameTokens}, {"max_logprob_diff", draws.maxLogProbDiff}};
  }
  if (flags.count("completions-out")) {
    json::array rows;
    for (const auto &completion : result.completions) {
      json::array logProbs;
      for (float lp : completion.logProbs)
        logProbs.push_back(lp);
      rows.push_back(
          json::object{{"ids", toJson(completion.ids)}, {"logprobs", logProbs}, {"finish", completion.finish}});
    }
    std::ofstream(textFlag(flags, "completions-out")) << json::serialize(rows) << "\n";
  }
  std::cout << json::serialize(out) << "\n";
  return 0;
}

} // namespace cudaperf
