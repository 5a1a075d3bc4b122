#include "cudaperf/trainer/SftTrainer.h"

#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/trainer/ConfigFields.h"
#include "cudaperf/trainer/DataOrder.h"
#include "cudaperf/trainer/GrpoTrainer.h"
#include "cudaperf/trainer/SftData.h"
#include "cudaperf/trainer/TrainingCheckpoint.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace cudaperf::trainer {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

ConfigTable fields(SftConfig &c) {
  return {{"model", &c.model},
          {"data", &c.data},
          {"out_dir", &c.outDir},
          {"device", &c.device},
          {"dtype", &c.dtype},
          {"seed", &c.seed},
          {"chat", &c.chat},
          {"epochs", &c.epochs},
          {"batch", &c.batch},
          {"micro_batch", &c.microBatch},
          {"max_tokens", &c.maxTokens},
          {"learning_rate", &c.learningRate},
          {"weight_decay", &c.weightDecay},
          {"grad_clip", &c.gradClip},
          {"min_lr_ratio", &c.minLrRatio},
          {"warmup_steps", &c.warmupSteps},
          {"checkpoint_every", &c.checkpointEvery},
          {"lora_rank", &c.loraRank},
          {"lora_alpha", &c.loraAlpha},
          {"resume", &c.resume}};
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

SftConfig SftConfig::fromFile(const std::string &path) { return fromJsonText(readTextFile(path), path); }

SftConfig SftConfig::fromJsonText(const std::string &text, const std::string &origin) {
  SftConfig config;
  readConfigFields(text, origin, fields(config));
  if (config.model.empty() || config.data.empty())
    throw std::invalid_argument(origin + ": 'model' (a Hugging Face folder) and 'data' (JSONL) are required");
  if (config.epochs < 1 || config.batch < 1 || config.microBatch < 1 || config.maxTokens < 2)
    throw std::invalid_argument(origin + ": epochs, batch and micro_batch must be at least 1, max_tokens at least 2");
  return config;
}

std::string SftConfig::toJsonText() const {
  SftConfig copy = *this;
  return writeConfigFields(fields(copy));
}

SftTrainer::SftTrainer(SftConfig config)
    : config_(std::move(config)), tokenizer_(Tokenizer::fromFolder(config_.model)) {
  const torch::Device device = deviceNamed(config_.device);
  std::ifstream data(config_.data);
  if (!data)
    throw std::runtime_error(config_.data + ": cannot read the file");
  std::int64_t lineNumber = 0;
  for (std::string line; std::getline(data, line);) {
    ++lineNumber;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    json::object row;
    try {
      row = json::parse(line).as_object();
    } catch (const std::exception &error) {
      throw std::runtime_error(config_.data + ":" + std::to_string(lineNumber) +
                               ": not a JSON object: " + error.what());
    }
    const auto *prompt = row.if_contains("prompt");
    const auto *completion = row.if_contains("completion");
    if (!prompt || !prompt->is_string() || !completion || !completion->is_string())
      throw std::runtime_error(config_.data + ":" + std::to_string(lineNumber) +
                               ": needs \"prompt\" and \"completion\" strings");
    std::string promptText;
    try {
      promptText = sftPromptText(row, config_.chat);
    } catch (const std::invalid_argument &error) {
      throw std::runtime_error(config_.data + ":" + std::to_string(lineNumber) + ": " + error.what());
    }
    const std::string completionText = std::string(completion->as_string()) + (config_.chat ? "<|im_end|>" : "");
    Example example;
    for (auto id : tokenizer_.encode(promptText)) {
      example.ids.push_back(id);
      example.completion.push_back(0);
    }
    for (auto id : tokenizer_.encode(completionText)) {
      example.ids.push_back(id);
      example.completion.push_back(1);
    }
    if (static_cast<std::int64_t>(example.ids.size()) > config_.maxTokens) { // the completion's tail goes
      example.ids.resize(config_.maxTokens);
      example.completion.resize(config_.maxTokens);
    }
    examples_.push_back(std::move(example));
  }
  if (examples_.empty())
    throw std::runtime_error(config_.data + ": no examples");
  const std::string resume = resolveResume(config_.outDir, config_.resume);
  // With LoRA a checkpoint's model files are merged: the base is `model`, the adapters the checkpoint's.
  model_ = std::make_unique<PolicyModel>(PolicyModel::load(
      resume.empty() || config_.loraRank > 0 ? config_.model : resume, device, dtypeNamed(config_.dtype)));
  if (config_.loraRank > 0) {
    model_->addLora(config_.loraRank, config_.loraAlpha, config_.seed);
    if (!resume.empty())
      model_->loadLora((fs::path(resume) / "lora.safetensors").string());
  }
  trainable_ = config_.loraRank > 0 ? model_->loraParameters() : model_->parameters();
  for (auto &p : trainable_)
    p.requires_grad_(true);
  optimizer_ = std::make_unique<AdamW>(trainable_, AdamWOptions{0.9, 0.999, 1e-8, config_.weightDecay});
  if (!resume.empty())
    step_ = loadTrainingCheckpoint(resume, *optimizer_, device);
}

std::int64_t SftTrainer::totalSteps() const {
  const auto n = static_cast<std::int64_t>(examples_.size());
  return (n * config_.epochs + config_.batch - 1) / config_.batch;
}

json::object SftTrainer::step() {
  const auto start = std::chrono::steady_clock::now();
  // The batch: examples [step * batch, ...) in the epochs' seeded order (DataOrder.h).
  const auto n = static_cast<std::int64_t>(examples_.size());
  std::vector<const Example *> batch;
  for (std::int64_t k = 0; k < config_.batch; ++k) {
    const std::int64_t index = step_ * config_.batch + k;
    if (index >= n * config_.epochs)
      break;
    batch.push_back(&examples_[exampleAt(static_cast<std::uint64_t>(index), examples_.size(), config_.seed)]);
  }
  double tokens = 0;
  for (const auto *e : batch)
    tokens += std::accumulate(e->completion.begin() + 1, e->completion.end(), 0.0);
  const double normalizer = std::max(1.0, tokens);
  SamplingOptions plain; // temperature 1, nothing removed: log_softmax
  const torch::Device device = model_->device();
  optimizer_->zeroGrad();
  double lossSum = 0;
  for (std::size_t begin = 0; begin < batch.size(); begin += static_cast<std::size_t>(config_.microBatch)) {
    const std::size_t end = std::min(batch.size(), begin + static_cast<std::size_t>(config_.microBatch));
    const auto R = static_cast<std::int64_t>(end - begin);
    std::int64_t longest = 0;
    for (std::size_t r = begin; r < end; ++r)
      longest = std::max<std::int64_t>(longest, batch[r]->ids.size());
    if (longest < 2)
      continue;
    std::vector<std::int64_t> ids(R * longest, 0), first(R);
    std::vector<float> mask(R * (longest - 1), 0);
    for (std::int64_t r = 0; r < R; ++r) {
      const Example &e = *batch[begin + r];
      const auto length = static_cast<std::int64_t>(e.ids.size());
      first[r] = longest - length;
      std::copy(e.ids.begin(), e.ids.end(), ids.begin() + r * longest + first[r]);
      for (std::int64_t j = 1; j < length; ++j) // target j, predicted at column j - 1
        mask[r * (longest - 1) + first[r] + j - 1] = e.completion[j];
    }
    auto longOptions = torch::TensorOptions().dtype(torch::kInt64);
    auto idTensor = torch::from_blob(ids.data(), {R, longest}, longOptions).clone().to(device);
    auto firstTensor = torch::from_blob(first.data(), {R}, longOptions).clone().to(device);
    auto maskTensor = torch::from_blob(mask.data(), {R, longest - 1}, torch::kFloat32).clone().to(device);
    auto logProbs = tokenLogProbs(*model_, idTensor, firstTensor, plain).to(torch::kFloat32);
    auto loss = -(torch::where(maskTensor > 0, logProbs, torch::zeros_like(logProbs)) * maskTensor).sum() / normalizer;
    loss.backward();
    lossSum += loss.item<double>();
  }
  const double gradNorm = clipGradientNorm(trainable_, config_.gradClip);
  const double learningRate =
      warmupCosine(optimizer_->steps(), config_.learningRate, config_.warmupSteps, totalSteps(), config_.minLrRatio);
  const bool finite = std::isfinite(gradNorm);
  if (finite)
    optimizer_->step(learningRate);
  optimizer_->zeroGrad();
  ++step_;
  return json::object{{"step", step_},
                      {"total_steps", totalSteps()}, // a stage driver tells a finished run from a stopped one
                      {"loss", lossSum},
                      {"tokens", tokens},
                      {"grad_norm", gradNorm},
                      {"skipped_update", !finite},
                      {"learning_rate", learningRate},
                      {"seconds", since(start)}};
}

void SftTrainer::run(std::ostream &progress, std::int64_t stopAfter, double stopAfterSeconds) {
  const auto start = std::chrono::steady_clock::now();
  fs::create_directories(config_.outDir);
  std::ofstream log(fs::path(config_.outDir) / "log.jsonl", std::ios::app);
  const std::int64_t total = totalSteps();
  const std::int64_t last = stopAfter > 0 ? std::min(total, step_ + stopAfter) : total;
  while (step_ < last) {
    const json::object record = step();
    log << json::serialize(record) << "\n";
    log.flush();
    progress << "sft step " << step_ << "/" << total << "  loss " << record.at("loss").as_double() << "\n";
    const bool stopping = stopAfterSeconds > 0 && since(start) >= stopAfterSeconds;
    // A time-limited stop always leaves a checkpoint, whatever checkpoint_every says.
    if ((config_.checkpointEvery > 0 && (step_ % config_.checkpointEvery == 0 || step_ == last)) || stopping)
      saveTrainingCheckpoint(config_.outDir, step_, *model_, *optimizer_, config_.model, config_.toJsonText());
    if (stopping) {
      progress << "sft: stopping after step " << step_ << " (--stop-after-seconds " << stopAfterSeconds << ")\n";
      break;
    }
  }
}

} // namespace cudaperf::trainer
