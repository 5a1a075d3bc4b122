#include "cudaperf/trainer/Sampler.h"

#include "cudaperf/trainer/DecodeKernels.h"
#include "cudaperf/trainer/StepRecordKernel.h"
#include "cudaperf/trainer/TokenDrawKernels.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <torch/cuda.h>

#ifdef CUDAPERF_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace cudaperf::trainer {

namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
// How often the host looks at the finished rows (a device-to-host copy).
constexpr std::int64_t kCheckEvery = 16;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void synchronize(const torch::Device &device) {
  if (device.is_cuda())
    torch::cuda::synchronize(device.index());
}

std::pair<torch::Tensor, torch::Tensor> atenDraw(const torch::Tensor &logits, const torch::Tensor &uniforms,
                                                 const SamplingOptions &options) {
  auto logProbs = samplingLogProbs(logits, options);
  auto tokens = inverseCdfDraw(logProbs, uniforms);
  return {tokens, logProbs.gather(-1, tokens.unsqueeze(1)).squeeze(1)};
}

// The draw in two kernels (TokenDrawKernels.h) where it computes the same
// distribution: CUDA f32 logits, no top-k or top-p. Uniforms [B], or [steps,
// B] with uniformRow (a device int64) naming the step's row. Undefined
// tensors where it does not apply.
std::pair<torch::Tensor, torch::Tensor> fusedDraw(const torch::Tensor &logits, const torch::Tensor &uniforms,
                                                  const torch::Tensor &uniformRow, const SamplingOptions &options) {
#ifdef CUDAPERF_FUSED_DECODE
  const auto V = logits.size(-1);
  const bool plainDistribution = (options.topK <= 0 || options.topK >= V) && options.topP >= 1.0;
  if (!plainDistribution || !logits.is_cuda() || logits.dim() != 2 || logits.scalar_type() != torch::kFloat32 ||
      !logits.is_contiguous() || !uniforms.is_contiguous() || uniforms.scalar_type() != torch::kFloat32 ||
      uniforms.device() != logits.device())
    return {};
  const auto B = logits.size(0);
  if (uniformRow.defined() ? uniforms.dim() != 2 || uniforms.size(1) != B || uniformRow.numel() != 1 ||
                                 uniformRow.scalar_type() != torch::kInt64 || uniformRow.device() != logits.device()
                           : uniforms.numel() != B)
    return {};
  const c10::cuda::CUDAGuard onDevice(logits.device());
  if (!decode::kernelsRunHere())
    return {};
  auto tokens = torch::empty({B}, logits.options().dtype(torch::kInt64));
  auto logProbs = torch::empty({B}, logits.options());
  decode::DrawArgs args;
  args.logits = logits.data_ptr<float>();
  args.uniforms = uniforms.data_ptr<float>();
  args.uniformRow = uniformRow.defined() ? uniformRow.data_ptr<std::int64_t>() : nullptr;
  args.temperature = static_cast<float>(options.temperature);
  args.tokens = tokens.data_ptr<std::int64_t>();
  args.logProbs = logProbs.data_ptr<float>();
  args.rows = static_cast<int>(B);
  args.vocab = static_cast<int>(V);
  args.workspace = reinterpret_cast<float *>(16); // aligned, non-null: drawFits asks for the shape first
  if (!decode::drawFits(args))
    return {};
  auto workspace =
      torch::empty({static_cast<std::int64_t>(decode::drawWorkspaceFloats(args.rows, args.vocab))}, logits.options());
  args.workspace = workspace.data_ptr<float>();
  decode::drawTokens(args, c10::cuda::getCurrentCUDAStream(logits.device().index()).stream());
  return {tokens, logProbs};
#else
  (void)logits, (void)uniforms, (void)uniformRow, (void)options;
  return {};
#endif
}

// Draws one token per row from logits [B, V] with uniforms u [B] in (0, 1).
// Returns (tokens, log-probs).
std::pair<torch::Tensor, torch::Tensor> choose(const torch::Tensor &logits, const torch::Tensor &uniforms,
                                               const SamplingOptions &options) {
  if (options.temperature <= 0) {
    auto tokens = logits.argmax(-1);
    return {tokens, torch::zeros({logits.size(0)}, logits.options())};
  }
  if (options.fusedSampling) {
    auto drawn = fusedDraw(logits, uniforms, torch::Tensor(), options);
    if (drawn.first.defined())
      return drawn;
  }
  return atenDraw(logits, uniforms, options);
}

// The decode step's state, updated in place by each step (a captured graph
// replays with the same addresses).
struct StepState {
  torch::Tensor generated, logProbs; // [B, N]
  torch::Tensor finished;            // [B] bool
  torch::Tensor lastToken;           // [B]: the next step's input
  torch::Tensor slot, column;        // one value each: the next token's cache slot, its column of generated
};

// Whether the step's bookkeeping runs as one kernel (StepRecordKernel.h).
bool recordsOnDevice(const torch::Device &device, const SamplingOptions &options) {
#ifdef CUDAPERF_FUSED_DECODE
  if (!device.is_cuda() || !options.fusedSampling ||
      options.stopIds.size() > static_cast<std::size_t>(decode::kMaxRecordStopIds))
    return false;
  const c10::cuda::CUDAGuard onDevice(device);
  return decode::kernelsRunHere();
#else
  (void)device, (void)options;
  return false;
#endif
}

// The step's bookkeeping (StepRecordKernel.h) for this step's draw: tokens
// [B] int64 and log-probs [B] f32 (undefined: greedy, 0).
void recordOnDevice(const torch::Tensor &tokens, const torch::Tensor &logProbs, StepState &state,
                    const SamplingOptions &options) {
#ifdef CUDAPERF_FUSED_DECODE
  const auto drawn = tokens.to(torch::kInt64).contiguous();
  const auto drawnLogProbs = logProbs.defined() ? logProbs.to(torch::kFloat32).contiguous() : logProbs;
  decode::RecordArgs args;
  args.drawn = drawn.data_ptr<std::int64_t>();
  args.drawnLogProbs = drawnLogProbs.defined() ? drawnLogProbs.data_ptr<float>() : nullptr;
  args.tokens = state.generated.data_ptr<std::int64_t>();
  args.logProbs = state.logProbs.data_ptr<float>();
  args.finished = state.finished.data_ptr<bool>();
  args.lastToken = state.lastToken.data_ptr<std::int64_t>();
  args.slot = state.slot.data_ptr<std::int64_t>();
  args.column = state.column.data_ptr<std::int64_t>();
  args.stops = static_cast<int>(options.stopIds.size());
  std::copy(options.stopIds.begin(), options.stopIds.end(), args.stopIds);
  args.padId = options.padId;
  args.rows = static_cast<int>(state.generated.size(0));
  args.columns = state.generated.size(1);
  const c10::cuda::CUDAGuard onDevice(tokens.device());
  decode::recordStep(args, c10::cuda::getCurrentCUDAStream(tokens.device().index()).stream());
#else
  (void)tokens, (void)logProbs, (void)state, (void)options;
  throw std::logic_error("recordOnDevice: this build has no fused sampling kernels");
#endif
}

// The same bookkeeping in LibTorch's operators (CPU, and where the kernel is not built).
void recordWithATen(torch::Tensor token, torch::Tensor logp, StepState &state, const SamplingOptions &options) {
  token = torch::where(state.finished, torch::full_like(token, options.padId), token);
  logp = torch::where(state.finished, torch::zeros_like(logp), logp);
  state.generated.index_copy_(1, state.column, token.unsqueeze(1));
  state.logProbs.index_copy_(1, state.column, logp.unsqueeze(1));
  for (auto id : options.stopIds)
    state.finished.logical_or_(token == id);
  state.lastToken.copy_(token);
  state.slot.add_(1);
  state.column.add_(1);
}

// Rows left-padded to the longest prompt (G rows per prompt): every row's
// step k is slot longest + k. Returns (ids [B, longest], first real slot [B]).
std::pair<torch::Tensor, torch::Tensor> leftPadded(const std::vector<std::vector<std::int64_t>> &prompts,
                                                   std::int64_t group, std::int64_t longest, std::int64_t padId,
                                                   torch::Device device) {
  const auto B = static_cast<std::int64_t>(prompts.size()) * group;
  std::vector<std::int64_t> flat(B * longest, padId), first(B);
  for (std::int64_t b = 0; b < B; ++b) {
    const auto &prompt = prompts[b / group];
    first[b] = longest - static_cast<std::int64_t>(prompt.size());
    std::copy(prompt.begin(), prompt.end(), flat.begin() + b * longest + first[b]);
  }
  auto longOptions = torch::TensorOptions().dtype(torch::kInt64);
  // copy=true: on the CPU a plain to() would return the view of these locals.
  return {torch::from_blob(flat.data(), {B, longest}, longOptions).to(device, false, true),
          torch::from_blob(first.data(), {B}, longOptions).to(device, false, true)};
}

} // namespace

torch::Tensor inverseCdfDraw(const torch::Tensor &logProbs, const torch::Tensor &uniforms) {
  // The CDF in two levels: one cumulative sum over [B, V] is a scan of B
  // blocks on the GPU (0.2 ms for Qwen's 151,936 ids, most of a sampling
  // step); the sums of blocks of kBlock ids, then the one block the target
  // falls in, are short scans of many rows.
  constexpr std::int64_t kBlock = decode::kInverseCdfBlock; // the fused draw's too
  const auto B = logProbs.size(0), V = logProbs.size(1);
  const auto blocks = (V + kBlock - 1) / kBlock;
  auto probabilities = logProbs.exp();
  if (blocks * kBlock != V)
    probabilities = torch::constant_pad_nd(probabilities, {0, blocks * kBlock - V}); // zero mass
  auto byBlock = probabilities.view({B, blocks, kBlock});
  auto blockCdf = byBlock.sum(-1).cumsum(-1); // [B, blocks]
  auto target = (uniforms * blockCdf.select(1, blocks - 1)).unsqueeze(1);
  auto block = torch::searchsorted(blockCdf, target).clamp(0, blocks - 1); // [B, 1]
  auto before = blockCdf.gather(1, (block - 1).clamp_min(0)) * (block > 0);
  auto inner = byBlock.gather(1, block.unsqueeze(2).expand({B, 1, kBlock})).squeeze(1); // [B, kBlock]
  auto offset = torch::searchsorted(inner.cumsum(-1) + before, target).clamp(0, kBlock - 1);
  // Rounding between the two levels can land on an id of no mass (removed,
  // padding): the most likely id of the block then (the block has mass).
  auto empty = inner.gather(1, offset) <= 0;
  offset = torch::where(empty, inner.argmax(-1, true), offset);
  return (block * kBlock + offset).squeeze(1);
}

void stopAtEndOfTurn(SamplingOptions &options, const ModelConfig &config, const Tokenizer &tokenizer) {
  options.stopIds = config.eosTokenIds;
  if (auto end = tokenizer.tokenId("<|im_end|>"))
    if (std::find(options.stopIds.begin(), options.stopIds.end(), *end) == options.stopIds.end())
      options.stopIds.push_back(*end);
  if (!options.stopIds.empty())
    options.padId = options.stopIds.front();
}

torch::Tensor samplingLogProbs(const torch::Tensor &logits, const SamplingOptions &options) {
  if (options.temperature <= 0)
    throw std::invalid_argument("samplingLogProbs: greedy decoding has no distribution (temperature 0)");
  auto scaled = logits.to(torch::kFloat32) / options.temperature;
  const auto V = scaled.size(-1);
  if (options.topK > 0 && options.topK < V) {
    auto kth = std::get<0>(scaled.topk(options.topK, -1)).narrow(-1, options.topK - 1, 1);
    scaled = scaled.masked_fill(scaled < kth, kMinusInfinity);
  }
  if (options.topP < 1.0) {
    auto [sorted, order] = scaled.sort(-1, /*descending=*/true);
    auto probabilities = torch::softmax(sorted, -1);
    auto before = probabilities.cumsum(-1) - probabilities; // mass ahead of each token
    auto removeSorted = before >= options.topP;
    auto remove = torch::zeros_like(removeSorted).scatter(-1, order, removeSorted);
    scaled = scaled.masked_fill(remove, kMinusInfinity);
  }
  return torch::log_softmax(scaled, -1);
}

std::int64_t Sampler::rowsPerChunk(std::int64_t longest) const {
  const std::int64_t perRow = std::max<std::int64_t>(1, model_.config().heads * longest * longest);
  return std::clamp<std::int64_t>(kPrefillScoreBudget / perRow, 1, kMaxRowsPerChunk);
}

GenerationResult Sampler::generateInChunks(const std::vector<std::vector<std::int64_t>> &prompts,
                                           const SamplingOptions &options) const {
  if (!options.rowSeeds.empty() && options.rowSeeds.size() != prompts.size())
    throw std::invalid_argument("generate: one row seed per prompt");
  // Longest prompts first, so that each chunk's size follows its own longest one.
  std::vector<std::size_t> order(prompts.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return prompts[a].size() > prompts[b].size(); });
  GenerationResult all;
  all.completions.resize(prompts.size());
  all.usedCudaGraph = all.usedFusedDecode = all.usedFusedSampling = true;
  for (std::size_t begin = 0; begin < order.size();) {
    const auto rows = static_cast<std::size_t>(rowsPerChunk(static_cast<std::int64_t>(prompts[order[begin]].size())));
    const std::size_t end = std::min(order.size(), begin + rows);
    std::vector<std::vector<std::int64_t>> chunk;
    SamplingOptions chunkOptions = options;
    chunkOptions.rowSeeds.clear();
    for (std::size_t k = begin; k < end; ++k) {
      chunk.push_back(prompts[order[k]]);
      if (!options.rowSeeds.empty())
        chunkOptions.rowSeeds.push_back(options.rowSeeds[order[k]]);
    }
    if (options.rowSeeds.empty()) // a chunk's own draws, not a copy of the first chunk's nor another seed's
      chunkOptions.seed = options.seed ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(begin) + 1));
    GenerationResult part = generate(chunk, 1, chunkOptions);
    for (std::size_t k = begin; k < end; ++k)
      all.completions[order[k]] = std::move(part.completions[k - begin]);
    all.prefillSeconds += part.prefillSeconds;
    all.decodeSeconds += part.decodeSeconds;
    all.decodeSteps = std::max(all.decodeSteps, part.decodeSteps);
    all.usedCudaGraph &= part.usedCudaGraph;
    all.usedFusedDecode &= part.usedFusedDecode;
    all.usedFusedSampling &= part.usedFusedSampling;
    begin = end;
  }
  return all;
}

GenerationResult Sampler::generate(const std::vector<std::vector<std::int64_t>> &prompts, std::int64_t group,
                                   const SamplingOptions &options) const {
  if (prompts.empty() || group <= 0)
    throw std::invalid_argument("generate: no prompts, or a group of no completions");
  if (options.maxNewTokens <= 0)
    throw std::invalid_argument("generate: max new tokens must be positive");
  if (!options.stopStrings.empty() && !tokenizer_)
    throw std::invalid_argument("generate: stop strings need a tokenizer");
  torch::NoGradGuard noGrad;
  const torch::Device device = model_.device();
  const auto P = static_cast<std::int64_t>(prompts.size());
  const std::int64_t B = P * group, N = options.maxNewTokens;
  std::int64_t longest = 0;
  for (const auto &prompt : prompts) {
    if (prompt.empty())
      throw std::invalid_argument("generate: an empty prompt");
    longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(prompt.size()));
  }
  auto longOptions = torch::TensorOptions().dtype(torch::kInt64);
  torch::Tensor ids, firstSlot; // named: the step's lambda captures them (C++17)
  std::tie(ids, firstSlot) = leftPadded(prompts, group, longest, options.padId, device);
  KvCache cache = model_.makeCache(B, longest + N);
  // The uniforms of every step drawn up front from the seed: the same draws
  // on CPU and GPU, and no random-number state inside a captured graph.
  torch::Tensor uniforms;
  if (options.rowSeeds.empty()) {
    auto generator = at::detail::createCPUGenerator(options.seed);
    uniforms = at::rand({N, B}, generator, torch::kFloat32);
  } else {
    // A row's draws from its own seed: the same wherever the row is sampled.
    if (static_cast<std::int64_t>(options.rowSeeds.size()) != B)
      throw std::invalid_argument("generate: " + std::to_string(options.rowSeeds.size()) + " row seeds for " +
                                  std::to_string(B) + " rows");
    std::vector<torch::Tensor> columns;
    for (const std::uint64_t seed : options.rowSeeds) {
      auto generator = at::detail::createCPUGenerator(seed);
      columns.push_back(at::rand({N}, generator, torch::kFloat32));
    }
    uniforms = torch::stack(columns, 1);
  }
  uniforms = (uniforms * (1 - 2e-7) + 1e-7).to(device);
  StepState state;
  state.generated = torch::full({B, N}, options.padId, longOptions.device(device));
  state.logProbs = torch::zeros({B, N}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  GenerationResult result;

#ifdef CUDAPERF_TORCH_CUDA
  // Capture needs a stream of its own; everything of this generation runs on it.
  std::optional<c10::cuda::CUDAStreamGuard> onStream;
  if (device.is_cuda()) {
    synchronize(device);
    onStream.emplace(c10::cuda::getStreamFromPool(false, device.index()));
  }
#endif

  auto start = std::chrono::steady_clock::now();
  auto logits = model_.prefill(ids, firstSlot, cache);
  auto [token0, logp0] = choose(logits, uniforms.select(0, 0), options);
  state.generated.select(1, 0).copy_(token0);
  state.logProbs.select(1, 0).copy_(logp0);
  state.finished = torch::zeros({B}, torch::TensorOptions().dtype(torch::kBool).device(device));
  for (auto id : options.stopIds)
    state.finished |= token0 == id;
  synchronize(device);
  result.prefillSeconds = seconds(start);

  // The step's state lives in fixed tensors, updated in place: a graph of
  // the step replays with the same addresses.
  state.lastToken = token0.clone();
  state.slot = torch::full({1}, longest, longOptions.device(device));
  state.column = torch::full({1}, 1, longOptions.device(device));
  const auto path = options.fusedDecode ? PolicyModel::DecodePath::Fastest : PolicyModel::DecodePath::ATen;
  result.usedFusedDecode = options.fusedDecode && model_.fusedDecodeFits(B);
  result.usedFusedSampling = N > 1 && recordsOnDevice(device, options);
  auto step = [&] {
    auto stepLogits = model_.decode(state.lastToken, state.slot, firstSlot, cache, path);
    if (!result.usedFusedSampling) {
      auto [token, logp] = choose(stepLogits, uniforms.index_select(0, state.column).squeeze(0), options);
      recordWithATen(token, logp, state, options);
      return;
    }
    // On the GPU: the draw takes its uniforms at the step's column itself, and
    // one kernel records the token (a greedy step's log-prob is 0).
    std::pair<torch::Tensor, torch::Tensor> drawn;
    if (options.temperature <= 0)
      drawn.first = stepLogits.argmax(-1);
    else
      drawn = fusedDraw(stepLogits, uniforms, state.column, options);
    if (!drawn.first.defined())
      drawn = atenDraw(stepLogits, uniforms.index_select(0, state.column).squeeze(0), options);
    recordOnDevice(drawn.first, drawn.second, state, options);
  };

  std::vector<bool> stoppedByString(B, false);
  auto allDone = [&](std::int64_t produced) {
    auto done = state.finished.to(torch::kCPU);
    bool all = true;
    torch::Tensor soFar;
    for (std::int64_t b = 0; b < B; ++b) {
      if (done[b].item<bool>() || stoppedByString[b])
        continue;
      if (!options.stopStrings.empty()) {
        if (!soFar.defined())
          soFar = state.generated.narrow(1, 0, produced).to(torch::kCPU);
        auto row = soFar[b];
        std::vector<std::int32_t> rowIds(row.data_ptr<std::int64_t>(), row.data_ptr<std::int64_t>() + produced);
        const std::string text = tokenizer_->decode(rowIds, true);
        for (const auto &stop : options.stopStrings)
          if (text.find(stop) != std::string::npos)
            stoppedByString[b] = true;
        if (stoppedByString[b])
          continue;
      }
      all = false;
    }
    return all;
  };

  start = std::chrono::steady_clock::now();
  std::int64_t produced = 1;
  bool useGraph = false;
#ifdef CUDAPERF_TORCH_CUDA
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  useGraph = device.is_cuda() && options.cudaGraph;
#endif
  while (produced < N) {
    if (produced % kCheckEvery == 0 && allDone(produced))
      break;
#ifdef CUDAPERF_TORCH_CUDA
    if (useGraph && produced >= 2) { // step 1 ran eagerly: the warm-up before capture
      if (!graph) {
        graph = std::make_unique<at::cuda::CUDAGraph>();
        graph->capture_begin();
        step();
        graph->capture_end();
      }
      graph->replay();
      ++produced;
      continue;
    }
#endif
    step();
    ++produced;
  }
  synchronize(device);
  result.decodeSeconds = seconds(start);
  result.decodeSteps = produced - 1;
  result.usedCudaGraph = useGraph && produced > 2;

  // Cut each row after its first stop id, or after the token that completes a stop string.
  auto hostIds = state.generated.narrow(1, 0, produced).to(torch::kCPU).contiguous();
  auto hostLogProbs = state.logProbs.narrow(1, 0, produced).to(torch::kCPU).contiguous();
  result.generatedIds = hostIds;
  result.generatedLogProbs = hostLogProbs;
  for (std::int64_t b = 0; b < B; ++b) {
    Completion completion;
    completion.finish = "length";
    const std::int64_t *row = hostIds.data_ptr<std::int64_t>() + b * produced;
    const float *rowLogProbs = hostLogProbs.data_ptr<float>() + b * produced;
    std::vector<std::int32_t> prefix;
    for (std::int64_t k = 0; k < produced; ++k) {
      completion.ids.push_back(row[k]);
      completion.logProbs.push_back(rowLogProbs[k]);
      if (std::find(options.stopIds.begin(), options.stopIds.end(), row[k]) != options.stopIds.end()) {
        completion.finish = "stop_id";
        break;
      }
      if (!options.stopStrings.empty()) {
        prefix.push_back(static_cast<std::int32_t>(row[k]));
        const std::string text = tokenizer_->decode(prefix, true);
        std::size_t cut = std::string::npos;
        for (const auto &stop : options.stopStrings)
          if (auto at = text.find(stop); at != std::string::npos)
            cut = std::min(cut, at + stop.size());
        if (cut != std::string::npos) {
          completion.finish = "stop_string";
          completion.text = text.substr(0, cut);
          break;
        }
      }
    }
    if (tokenizer_ && completion.finish != "stop_string") {
      std::vector<std::int32_t> narrow(completion.ids.begin(), completion.ids.end());
      completion.text = tokenizer_->decode(narrow, true);
    }
    result.completions.push_back(std::move(completion));
  }
  return result;
}

std::vector<std::vector<float>> completionLogProbs(const PolicyModel &model,
                                                   const std::vector<std::vector<std::int64_t>> &prompts,
                                                   const std::vector<std::vector<std::int64_t>> &completions,
                                                   const SamplingOptions &options, std::int64_t rowsPerForward) {
  if (prompts.size() != completions.size())
    throw std::invalid_argument("completionLogProbs: one prompt per completion");
  torch::NoGradGuard noGrad;
  std::vector<std::vector<float>> out(prompts.size());
  const auto longOptions = torch::TensorOptions().dtype(torch::kInt64);
  for (std::size_t begin = 0; begin < prompts.size(); begin += static_cast<std::size_t>(rowsPerForward)) {
    const std::size_t end = std::min(prompts.size(), begin + static_cast<std::size_t>(rowsPerForward));
    const auto R = static_cast<std::int64_t>(end - begin);
    std::int64_t longest = 0, longestCompletion = 0;
    for (std::size_t r = begin; r < end; ++r) {
      longest = std::max<std::int64_t>(longest, prompts[r].size() + completions[r].size());
      longestCompletion = std::max<std::int64_t>(longestCompletion, completions[r].size());
    }
    if (longestCompletion == 0)
      continue;
    std::vector<std::int64_t> flat(R * longest, options.padId), first(R), columns(R * longestCompletion, 0),
        targets(R * longestCompletion, 0);
    for (std::int64_t r = 0; r < R; ++r) {
      const auto &prompt = prompts[begin + r];
      const auto &completion = completions[begin + r];
      first[r] = longest - static_cast<std::int64_t>(prompt.size() + completion.size());
      std::copy(prompt.begin(), prompt.end(), flat.begin() + r * longest + first[r]);
      std::copy(completion.begin(), completion.end(), flat.begin() + r * longest + first[r] + prompt.size());
      for (std::size_t j = 0; j < completion.size(); ++j) {
        // Completion token j sits at column first + |prompt| + j; the column before predicts it.
        columns[r * longestCompletion + j] = first[r] + static_cast<std::int64_t>(prompt.size() + j) - 1;
        targets[r * longestCompletion + j] = completion[j];
      }
    }
    const torch::Device device = model.device();
    auto ids = torch::from_blob(flat.data(), {R, longest}, longOptions).to(device);
    auto firstSlot = torch::from_blob(first.data(), {R}, longOptions).to(device);
    auto columnIndex = torch::from_blob(columns.data(), {R, longestCompletion, 1}, longOptions).to(device);
    auto targetIndex = torch::from_blob(targets.data(), {R, longestCompletion, 1}, longOptions).to(device);
    auto logits = model.forward(ids, firstSlot);
    const auto V = logits.size(-1);
    auto predicting = logits.gather(1, columnIndex.expand({R, longestCompletion, V}));
    torch::Tensor chosen;
    if (options.temperature <= 0)
      chosen = torch::zeros({R, longestCompletion}, torch::kFloat32);
    else
      chosen = samplingLogProbs(predicting, options).gather(-1, targetIndex).squeeze(-1).to(torch::kCPU);
    chosen = chosen.contiguous();
    for (std::int64_t r = 0; r < R; ++r) {
      const float *row = chosen.data_ptr<float>() + r * longestCompletion;
      out[begin + r].assign(row, row + completions[begin + r].size());
    }
  }
  return out;
}

DecodePathAgreement compareDecodePaths(const PolicyModel &model, const std::vector<std::vector<std::int64_t>> &prompts,
                                       std::int64_t group, std::int64_t steps, std::int64_t padId) {
  DecodePathAgreement agreement;
  const auto B = static_cast<std::int64_t>(prompts.size()) * group;
  if (!model.fusedDecodeFits(B) || steps <= 0)
    return agreement;
  torch::NoGradGuard noGrad;
  std::int64_t longest = 0;
  for (const auto &prompt : prompts)
    longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(prompt.size()));
  auto [ids, firstSlot] = leftPadded(prompts, group, longest, padId, model.device());
  KvCache reference = model.makeCache(B, longest + steps);
  auto token = model.prefill(ids, firstSlot, reference).argmax(-1);
  KvCache fused;
  fused.capacity = reference.capacity;
  for (const auto &layer : reference.keysAndValues)
    fused.keysAndValues.push_back(layer.clone());
  auto slot = torch::full({1}, longest, torch::TensorOptions().dtype(torch::kInt64).device(model.device()));
  agreement.fused = true;
  agreement.rows = B;
  for (std::int64_t s = 0; s < steps; ++s) {
    auto expected = model.decode(token, slot, firstSlot, reference, PolicyModel::DecodePath::ATen);
    auto got = model.decode(token, slot, firstSlot, fused, PolicyModel::DecodePath::Fastest);
    agreement.maxLogitDiff = std::max(agreement.maxLogitDiff, (expected - got).abs().max().item<double>());
    agreement.maxAbsLogit = std::max(agreement.maxAbsLogit, expected.abs().max().item<double>());
    token = expected.argmax(-1);
    agreement.sameArgmax += (token == got.argmax(-1)).sum().item<std::int64_t>();
    slot.add_(1);
    ++agreement.steps;
  }
  for (std::size_t i = 0; i < reference.keysAndValues.size(); ++i) {
    agreement.maxAbsCache =
        std::max(agreement.maxAbsCache, reference.keysAndValues[i].abs().max().to(torch::kFloat32).item<double>());
    agreement.maxCacheDiff = std::max(agreement.maxCacheDiff, (reference.keysAndValues[i].to(torch::kFloat32) -
                                                               fused.keysAndValues[i].to(torch::kFloat32))
                                                                  .abs()
                                                                  .max()
                                                                  .item<double>());
  }
  return agreement;
}

DrawPathAgreement compareDrawPaths(const torch::Tensor &logits, const SamplingOptions &options, std::int64_t trials,
                                   std::uint64_t seed) {
  DrawPathAgreement agreement;
  torch::NoGradGuard noGrad;
  auto generator = at::detail::createCPUGenerator(seed);
  // As the sampler draws: a table of uniforms [steps, B] and the step's row as a device value.
  constexpr std::int64_t kSteps = 3;
  for (std::int64_t t = 0; t < trials; ++t) {
    auto table =
        (at::rand({kSteps, logits.size(0)}, generator, torch::kFloat32) * (1 - 2e-7) + 1e-7).to(logits.device());
    auto row = torch::full({1}, t % kSteps, torch::TensorOptions().dtype(torch::kInt64).device(logits.device()));
    auto uniforms = table.select(0, t % kSteps);
    auto [tokens, logProbs] = fusedDraw(logits, table, row, options);
    if (!tokens.defined())
      return agreement;
    agreement.fused = true;
    auto reference = samplingLogProbs(logits, options);
    auto expected = inverseCdfDraw(reference, uniforms);
    agreement.draws += logits.size(0);
    agreement.sameTokens += (tokens == expected).sum().item<std::int64_t>();
    // The fused log-prob against ATen's at the token the fused draw chose.
    auto atChosen = reference.gather(-1, tokens.unsqueeze(1)).squeeze(1);
    agreement.maxLogProbDiff = std::max(agreement.maxLogProbDiff, (atChosen - logProbs).abs().max().item<double>());
  }
  return agreement;
}

std::int64_t bitEqualRows(const GenerationResult &a, const GenerationResult &b) {
  if (!a.generatedIds.defined() || !b.generatedIds.defined() || a.completions.size() != b.completions.size() ||
      a.generatedIds.sizes() != b.generatedIds.sizes() || a.generatedLogProbs.sizes() != b.generatedLogProbs.sizes())
    return 0;
  // Log-probs compared as their bits: a kernel writing -0 or another NaN is not the same.
  auto bitsA = a.generatedLogProbs.contiguous().view(torch::kInt32);
  auto bitsB = b.generatedLogProbs.contiguous().view(torch::kInt32);
  std::int64_t same = 0;
  for (std::int64_t r = 0; r < a.generatedIds.size(0); ++r)
    same += torch::equal(a.generatedIds[r], b.generatedIds[r]) && torch::equal(bitsA[r], bitsB[r]) &&
            a.completions[r].finish == b.completions[r].finish;
  return same;
}

RecordPathAgreement compareRecordPaths(const Sampler &sampler, const std::vector<std::vector<std::int64_t>> &prompts,
                                       std::int64_t group, SamplingOptions options) {
  RecordPathAgreement agreement;
  options.stopStrings.clear();
  for (const double temperature : {0.0, 1.0}) {
    options.temperature = temperature;
    options.topP = temperature > 0 ? 0.999 : 1.0;
    options.stopIds.clear();
    options.fusedSampling = true;
    // Stop ids from a first run: the token at a different step of a few rows.
    const auto seen = sampler.generate(prompts, group, options);
    if (!seen.usedFusedSampling)
      return agreement;
    agreement.fused = true;
    for (std::size_t r = 0; r < seen.completions.size() && options.stopIds.size() < 4; r += 3) {
      const auto &ids = seen.completions[r].ids;
      if (ids.size() > 2)
        options.stopIds.push_back(ids[(r * 5 + 2) % ids.size()]);
    }
    const auto onDevice = sampler.generate(prompts, group, options);
    options.fusedSampling = false;
    const auto withATen = sampler.generate(prompts, group, options);
    agreement.completions += static_cast<std::int64_t>(onDevice.completions.size());
    agreement.sameCompletions += bitEqualRows(onDevice, withATen);
    agreement.sameSteps = agreement.sameSteps && onDevice.decodeSteps == withATen.decodeSteps;
    for (const auto &completion : onDevice.completions)
      agreement.stoppedEarly += completion.finish == "stop_id";
  }
  return agreement;
}

} // namespace cudaperf::trainer
