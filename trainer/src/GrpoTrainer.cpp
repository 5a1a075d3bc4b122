#include "cudaperf/trainer/GrpoTrainer.h"

#include "cudaperf/trainer/CompletionRecord.h"
#include "cudaperf/trainer/DataOrder.h"
#include "cudaperf/trainer/DataParallel.h"
#include "cudaperf/trainer/KernelPrompt.h"
#include "cudaperf/trainer/PolicyLoss.h"
#include "cudaperf/trainer/TaskSelection.h"
#include "cudaperf/trainer/TrainingCheckpoint.h"
#include "cudaperf/trainer/TrajectoryAdvantages.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>
#include <unistd.h>

#ifdef CUDAPERF_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace cudaperf::trainer {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The most device memory LibTorch's allocator held since the last call (0 off CUDA), then a new count: a
// phase's peak, for the memory a model of a given size needs (the scale check of docs/results/README.md).
std::int64_t takeCudaPeak(torch::Device device) {
#ifdef CUDAPERF_TORCH_CUDA
  if (device.is_cuda()) {
    const auto peak = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index()).allocated_bytes[0].peak;
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
    return peak;
  }
#endif
  (void)device;
  return 0;
}

} // namespace

torch::Tensor tokenLogProbs(const PolicyModel &model, const torch::Tensor &ids, const torch::Tensor &firstSlot,
                            const SamplingOptions &options, torch::Tensor *entropy) {
  const auto L = ids.size(1);
  auto logits = model.forward(ids.narrow(1, 0, L - 1), firstSlot);
  auto logProbs = samplingLogProbs(logits, options);
  if (entropy) {
    torch::NoGradGuard noGrad;
    auto p = logProbs.exp();
    // Removed tokens (log-prob -inf, probability 0) add nothing.
    *entropy = -(p * logProbs.masked_fill(p == 0, 0)).sum(-1);
  }
  return logProbs.gather(-1, ids.narrow(1, 1, L - 1).unsqueeze(-1)).squeeze(-1);
}

struct GrpoTrainer::Trajectory {
  std::uint64_t id; // group * G + g over the whole step's batch: its sampling seeds, whichever rank owns it
  std::size_t task;
  Conversation conversation;
  std::vector<float> samplerLogProbs; // one per policy token, in order
  TrajectoryOutcomes outcomes;
  std::vector<RewardAnswer> answers;
  bool done = false;
  // The machine could not judge one of its answers, even after the reward
  // client's retries (a GPU another process kept busy, no worker): its group
  // is left out of the step, never scored as anything.
  bool unjudged = false;
};

GrpoTrainer::GrpoTrainer(GrpoConfig config, RewardSource &rewards, DataParallel *parallel)
    : config_(std::move(config)), rewards_(rewards), parallel_(parallel),
      tokenizer_(Tokenizer::fromFolder(config_.model)) {
  if (tokenizer_.normalizerSkipped())
    std::cerr
        << "cudaperf-train grpo: warning: the tokenizer asks for NFC, this build has no ICU: text used as it is\n";
  const torch::Device device = deviceNamed(config_.device);
  const torch::Dtype dtype = dtypeNamed(config_.dtype);
  tasks_ = loadTasks(config_.tasksDir, config_.tasks);
  if (tasks_.empty())
    throw std::invalid_argument("grpo: no tasks in " + config_.tasksDir);

  std::string weights = config_.model;
  const std::string resume = resolveResume(config_.outDir, config_.resume);
  // With LoRA the checkpoint's model files are merged: the base comes from
  // `model`, the adapters from the checkpoint.
  if (!resume.empty() && config_.loraRank == 0)
    weights = resume;
  model_ = std::make_unique<PolicyModel>(PolicyModel::load(weights, device, dtype));
  if (config_.loraRank > 0) {
    model_->addLora(config_.loraRank, config_.loraAlpha, config_.seed);
    if (!resume.empty())
      model_->loadLora((fs::path(resume) / "lora.safetensors").string());
  }
  trainable_ = config_.loraRank > 0 ? model_->loraParameters() : model_->parameters();
  if (config_.beta > 0) // the frozen reference: the starting policy, also on resume
    reference_ = std::make_unique<PolicyModel>(PolicyModel::load(config_.model, device, dtype));
  // Every rank starts from rank 0's weights (the same files and seeds give
  // the same anyway; this makes it so whatever a rank's files held).
  if (parallel_)
    parallel_->broadcastFromLeader(trainable_);
  for (auto &p : trainable_)
    p.requires_grad_(true);
  optimizer_ = std::make_unique<AdamW>(trainable_, AdamWOptions{0.9, 0.999, 1e-8, config_.weightDecay});
  if (!resume.empty())
    step_ = loadTrainingCheckpoint(resume, *optimizer_, device);

  sampling_.temperature = config_.temperature;
  sampling_.topP = config_.topP;
  sampling_.topK = config_.topK;
  sampling_.maxNewTokens = config_.maxNewTokens;
  stopAtEndOfTurn(sampling_, model_->config(), tokenizer_);
}

std::vector<std::size_t> GrpoTrainer::promptsOfStep(std::int64_t step) const {
  // The data position is the step: a resume neither replays nor skips (DataOrder.h).
  std::vector<std::size_t> out;
  for (std::int64_t k = 0; k < config_.promptsPerStep; ++k)
    out.push_back(
        exampleAt(static_cast<std::uint64_t>(step * config_.promptsPerStep + k), tasks_.size(), config_.seed));
  return out;
}

json::object GrpoTrainer::step() {
  const auto stepStart = std::chrono::steady_clock::now();
  double generateSeconds = 0, rewardSeconds = 0, trainSeconds = 0;
  std::int64_t generatedTokens = 0, daemonCalls = 0, generatePeakBytes = 0;
  takeCudaPeak(model_->device());
  const int G = config_.group;
  if (!completions_.is_open()) {
    fs::create_directories(config_.outDir);
    const std::string name = parallel_ && !parallel_->leader()
                                 ? "completions-rank-" + std::to_string(parallel_->rank()) + ".jsonl"
                                 : std::string("completions.jsonl");
    completions_.open(fs::path(config_.outDir) / name, std::ios::app);
    if (!completions_)
      throw std::runtime_error("grpo: cannot write " + (fs::path(config_.outDir) / name).string());
  }

  // ------------------------------------------------------------- rollout
  // The step's prompts are the same on every rank; a rank rolls out, scores
  // and trains on the groups it owns (all of them in a run of one process).
  std::vector<std::vector<Trajectory>> groups;
  const std::vector<std::size_t> prompts = promptsOfStep(step_);
  for (std::size_t k = 0; k < prompts.size(); ++k) {
    if (parallel_ && !parallel_->owns(k))
      continue;
    groups.emplace_back();
    for (int g = 0; g < G; ++g)
      groups.back().push_back(Trajectory{k * static_cast<std::uint64_t>(G) + static_cast<std::uint64_t>(g),
                                         prompts[k],
                                         Conversation(tokenizer_, tasks_[prompts[k]]),
                                         {},
                                         {},
                                         {},
                                         false});
  }
  std::vector<bool> groupActive(groups.size(), true);
  std::vector<int> passedPerTurn(config_.maxTurns + 1, 0), tookTurn(config_.maxTurns + 1, 0);
  int admittedAfterFirst = 0, groupsWithFailuresAfterFirst = 0;
  int diagnosticTrials = 0, diagnosticRecovered = 0, unjudgedAnswers = 0, unjudgedDiagnostic = 0;
  std::vector<double> rewardsFirstTurn, rVerFirstTurn, rStrFirstTurn;
  const auto unjudgedGroup = [](const std::vector<Trajectory> &group) {
    return std::any_of(group.begin(), group.end(), [](const Trajectory &row) { return row.unjudged; });
  };

  // Generate and score one turn for the given trajectories; train on it or not.
  auto playTurn = [&](std::vector<Trajectory *> rows, int turn, bool trained) {
    std::vector<std::vector<std::int64_t>> contexts;
    for (auto *row : rows)
      contexts.push_back(row->conversation.ids());
    SamplingOptions options = sampling_;
    // A row's draws are a function of the run's seed, the step, the turn and
    // the row alone: the same completions whichever rank samples it, in
    // whatever batch.
    const std::uint64_t turnSeed = mixSeed(config_.seed, static_cast<std::uint64_t>(step_),
                                           static_cast<std::uint64_t>(turn) + (trained ? 0 : 1000));
    for (auto *row : rows)
      options.rowSeeds.push_back(mixSeed(turnSeed, row->id, 0));
    auto start = std::chrono::steady_clock::now();
    const Sampler sampler(*model_, &tokenizer_);
    const GenerationResult generated = sampler.generateInChunks(contexts, options);
    generateSeconds += since(start);
    generatePeakBytes = std::max(generatePeakBytes, takeCudaPeak(model_->device()));
    std::vector<RewardRequest> requests;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      generatedTokens += static_cast<std::int64_t>(generated.completions[i].ids.size());
      requests.push_back({tasks_[rows[i]->task].name, extractKernelSource(generated.completions[i].text), turn});
    }
    start = std::chrono::steady_clock::now();
    const auto answers = rewards_.evaluate(requests);
    rewardSeconds += since(start);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      json::object record = completionRecord(requests[i], answers[i], true); // failures too: refinement data
      record["step"] = step_ + 1;
      record["trained"] = trained; // false: a diagnostic turn, measured and never trained on
      completions_ << json::serialize(record) << "\n";
    }
    completions_.flush();
    daemonCalls += static_cast<std::int64_t>(requests.size());
    std::vector<bool> passed;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      RewardAnswer answer = answers[i];
      // A 4xx is the request's fault, which here is the completion's (say, a
      // source over the daemon's size limit): it counts as the group's worst
      // reward (a non-finite reward does, in the advantages), never as 0,
      // which a policy could learn to reach on purpose. No answer at all is
      // the machine's: the step stops.
      if (!answer.ok && answer.httpStatus >= 400 && answer.httpStatus < 500) {
        answer.status = "request_refused";
        answer.reward = std::numeric_limits<double>::quiet_NaN();
        answer.feedback = "The reward server refused the answer: " + answer.error;
      } else if (!answer.ok && answer.httpStatus == 200 && !answer.body.empty()) {
        // The machine's verdict after the client's last attempt: this completion cannot be scored now.
        passed.push_back(false);
        if (trained) {
          rows[i]->unjudged = rows[i]->done = true;
          ++unjudgedAnswers;
        } else {
          ++unjudgedDiagnostic; // not a trial of the diagnostic's: nothing is known of it
        }
        continue;
      } else if (!answer.ok) {
        throw std::runtime_error("grpo: the reward request for task '" + requests[i].task +
                                 "' failed: " + answer.error);
      }
      passed.push_back(answer.status == "ok");
      if (!trained)
        continue;
      Trajectory &row = *rows[i];
      row.conversation.addCompletion(generated.completions[i].ids);
      row.samplerLogProbs.insert(row.samplerLogProbs.end(), generated.completions[i].logProbs.begin(),
                                 generated.completions[i].logProbs.end());
      row.outcomes.push_back({answer.reward.value_or(0.0), passed.back(), answer.speedup});
      row.answers.push_back(answer);
      row.done = passed.back();
      ++tookTurn[turn];
      passedPerTurn[turn] += passed.back();
    }
    return passed;
  };

  const DcpGate gate{config_.dcpTauMin, config_.dcpTauMax};
  for (int turn = 1; turn <= config_.maxTurns; ++turn) {
    std::vector<Trajectory *> rows;
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (groupActive[g])
        for (auto &row : groups[g])
          if (!row.done)
            rows.push_back(&row);
    if (rows.empty())
      break;
    playTurn(rows, turn, true);
    std::vector<Trajectory> diagnostic; // copies: their extra turn is not trained on
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groupActive[g] && unjudgedGroup(groups[g]))
        groupActive[g] = false; // left out of the step: no more turns either
      if (!groupActive[g])
        continue;
      std::vector<TrajectoryOutcomes> outcomes;
      for (auto &row : groups[g])
        outcomes.push_back(row.outcomes);
      const bool another = takesAnotherTurn(outcomes, turn, config_.maxTurns, gate);
      const bool failures = std::any_of(groups[g].begin(), groups[g].end(), [](auto &r) { return !r.done; });
      if (turn == 1 && failures && config_.maxTurns > 1) {
        ++groupsWithFailuresAfterFirst;
        admittedAfterFirst += another;
      }
      // Contexts that grew past the limit take no more turns.
      for (auto &row : groups[g])
        if (!row.done &&
            static_cast<std::int64_t>(row.conversation.ids().size()) + config_.maxNewTokens > config_.maxContextTokens)
          row.done = true;
      if (another) {
        for (auto &row : groups[g])
          if (!row.done)
            row.conversation.addFeedback(row.answers.back().feedback);
      } else {
        groupActive[g] = false;
        // LEAP's diagnostic: what the pruned group's failures would have done with one more turn.
        if (config_.dcpDiagnostic && failures && turn < config_.maxTurns)
          for (auto &row : groups[g])
            if (!row.done) {
              diagnostic.push_back(row);
              diagnostic.back().conversation.addFeedback(row.answers.back().feedback);
            }
      }
    }
    if (!diagnostic.empty()) {
      std::vector<Trajectory *> pointers;
      for (auto &row : diagnostic)
        pointers.push_back(&row);
      const int unjudgedBefore = unjudgedDiagnostic;
      const auto recovered = playTurn(pointers, turn + 1, false);
      diagnosticTrials += static_cast<int>(recovered.size()) - (unjudgedDiagnostic - unjudgedBefore);
      diagnosticRecovered += static_cast<int>(std::count(recovered.begin(), recovered.end(), true));
    }
  }

  // The first turn's rewards, of the groups the step keeps (a group left out says nothing of the policy).
  for (const auto &group : groups) {
    if (unjudgedGroup(group))
      continue;
    for (const auto &row : group) {
      if (row.answers.empty() || !std::isfinite(row.answers.front().reward.value_or(0.0)))
        continue;
      const RewardAnswer &first = row.answers.front();
      rewardsFirstTurn.push_back(first.reward.value_or(0.0));
      if (first.rVer)
        rVerFirstTurn.push_back(*first.rVer);
      if (first.rStr)
        rStrFirstTurn.push_back(*first.rStr);
    }
  }

  // ---------------------------------------------------------- advantages
  AdvantageOptions advantageOptions;
  advantageOptions.mode = parseTrajectoryAdvantage(config_.advantage);
  advantageOptions.gamma = config_.gamma;
  advantageOptions.rankTieBreakBySpeedup = config_.rankTieBreakBySpeedup;
  struct Row {
    const Trajectory *trajectory;
    std::vector<double> advantages; // per turn
  };
  std::vector<Row> rows;
  int zeroStdGroups = 0, unjudgedGroups = 0;
  for (auto &group : groups) {
    if (unjudgedGroup(group)) {
      ++unjudgedGroups;
      continue;
    }
    std::vector<TrajectoryOutcomes> outcomes;
    for (auto &row : group)
      outcomes.push_back(row.outcomes);
    const auto advantages = trajectoryAdvantages(outcomes, advantageOptions);
    if (allAdvantagesZero(advantages)) {
      ++zeroStdGroups;
      if (config_.filterZeroStd)
        continue;
    }
    for (std::size_t i = 0; i < group.size(); ++i)
      rows.push_back({&group[i], advantages[i]});
  }

  // ------------------------------------------------------------ training
  const auto trainStart = std::chrono::steady_clock::now();
  PolicyLossOptions lossOptions;
  lossOptions.epsLow = config_.epsLow;
  lossOptions.epsHigh = config_.epsHigh;
  lossOptions.beta = config_.beta;
  lossOptions.tisCap = config_.tisCap;
  lossOptions.aggregation = parseLossAggregation(config_.lossAggregation);
  lossOptions.maxCompletionTokens = config_.maxNewTokens * config_.maxTurns;
  const torch::Device device = model_->device();
  struct Micro {
    torch::Tensor ids, firstSlot, mask, advantages, samplerLogProbs, oldLogProbs, refLogProbs;
  };
  std::vector<Micro> micros;
  double fullTokens = 0, agreementSum = 0, entropySum = 0;
  for (std::size_t begin = 0; begin < rows.size(); begin += static_cast<std::size_t>(config_.microBatch)) {
    const std::size_t end = std::min(rows.size(), begin + static_cast<std::size_t>(config_.microBatch));
    const auto R = static_cast<std::int64_t>(end - begin);
    std::int64_t longest = 0;
    for (std::size_t r = begin; r < end; ++r)
      longest = std::max<std::int64_t>(longest, rows[r].trajectory->conversation.ids().size());
    std::vector<std::int64_t> ids(R * longest, sampling_.padId), first(R);
    std::vector<float> mask(R * (longest - 1), 0), advantages(R * (longest - 1), 0), sampler(R * (longest - 1), 0);
    for (std::int64_t r = 0; r < R; ++r) {
      const Conversation &c = rows[begin + r].trajectory->conversation;
      const auto n = static_cast<std::int64_t>(c.ids().size());
      first[r] = longest - n;
      std::copy(c.ids().begin(), c.ids().end(), ids.begin() + r * longest + first[r]);
      std::size_t policyToken = 0;
      for (std::int64_t j = 1; j < n; ++j) // target column j predicted at column j - 1
        if (c.policyMask()[j]) {
          const std::int64_t at = r * (longest - 1) + first[r] + j - 1;
          mask[at] = 1;
          advantages[at] = static_cast<float>(rows[begin + r].advantages[c.turnOf()[j] - 1]);
          sampler[at] = rows[begin + r].trajectory->samplerLogProbs[policyToken++];
        }
    }
    auto longOptions = torch::TensorOptions().dtype(torch::kInt64);
    Micro micro;
    // Copies (clone): on the CPU .to() would keep pointing into these vectors, gone after this loop.
    micro.ids = torch::from_blob(ids.data(), {R, longest}, longOptions).clone().to(device);
    micro.firstSlot = torch::from_blob(first.data(), {R}, longOptions).clone().to(device);
    micro.mask = torch::from_blob(mask.data(), {R, longest - 1}, torch::kFloat32).clone().to(device);
    micro.advantages = torch::from_blob(advantages.data(), {R, longest - 1}, torch::kFloat32).clone().to(device);
    micro.samplerLogProbs = torch::from_blob(sampler.data(), {R, longest - 1}, torch::kFloat32).clone().to(device);
    {
      // The trainer's log-probs of the policy that sampled: the ratio's denominator.
      torch::NoGradGuard noGrad;
      torch::Tensor entropy;
      micro.oldLogProbs = tokenLogProbs(*model_, micro.ids, micro.firstSlot, sampling_, &entropy).to(torch::kFloat32);
      const auto gap = (micro.oldLogProbs - micro.samplerLogProbs).abs().clamp_max(50);
      agreementSum += (gap.exp() * micro.mask).sum().item<double>();
      entropySum += (entropy.to(torch::kFloat32) * micro.mask).sum().item<double>();
      if (reference_)
        micro.refLogProbs = tokenLogProbs(*reference_, micro.ids, micro.firstSlot, sampling_).to(torch::kFloat32);
    }
    fullTokens += micro.mask.sum().item<double>();
    micros.push_back(std::move(micro));
  }
  double lossValue = 0, gradNorm = 0, clipped = 0, trainedTokens = 0, klSum = 0, tisClipped = 0;
  std::int64_t skippedUpdates = 0;
  const double learningRate = warmupCosine(optimizer_->steps(), config_.learningRate, config_.warmupSteps,
                                           config_.steps * config_.updatesPerBatch, config_.minLrRatio);
  // The batch's normaliser: tokens (or completions) of the whole batch, not
  // of a micro-batch, nor of one rank's share: summed over ranks, the ranks'
  // gradients add up to the one batch's.
  std::vector<double> batchSize{0.0, static_cast<double>(rows.size())}; // tokens, completions
  for (auto &m : micros)
    batchSize[0] += m.mask.sum().item<double>();
  if (parallel_)
    parallel_->sum(batchSize);
  if (batchSize[1] > 0) {
    const double normalizer = lossNormalizer(batchSize[0], batchSize[1], lossOptions);
    for (int update = 0; update < config_.updatesPerBatch; ++update) {
      optimizer_->zeroGrad();
      double updateLoss = 0;
      for (auto &micro : micros) {
        PolicyLossBatch batch;
        batch.logProbs =
            tokenLogProbs(*model_, micro.ids, micro.firstSlot, sampling_).to(torch::kFloat32).clamp_min(-1e3);
        batch.oldLogProbs = micro.oldLogProbs.clamp_min(-1e3);
        batch.samplerLogProbs = micro.samplerLogProbs;
        batch.refLogProbs = micro.refLogProbs;
        batch.advantages = micro.advantages;
        batch.mask = micro.mask;
        PolicyLossResult result = policyLoss(batch, normalizer, lossOptions);
        result.loss.backward();
        updateLoss += result.loss.item<double>();
        clipped += result.clippedTokens;
        trainedTokens += result.tokens;
        klSum += result.klSum;
        tisClipped += result.tisClippedTokens;
      }
      if (parallel_) // every rank then clips and steps the same gradient: the weights stay equal
        parallel_->sumGradients(trainable_);
      gradNorm = clipGradientNorm(trainable_, config_.gradClip);
      if (std::isfinite(gradNorm))
        optimizer_->step(learningRate);
      else
        ++skippedUpdates; // a non-finite gradient never reaches the weights
      optimizer_->zeroGrad();
      lossValue = updateLoss;
    }
  }
  trainSeconds = since(trainStart);
  const std::int64_t trainPeakBytes = takeCudaPeak(device);

  // ------------------------------------------------------------- the log
  // The whole batch's figures: sums over the ranks of a data-parallel run
  // (one rank: its own), the slowest rank's seconds.
  auto total = [](const std::vector<double> &values) { return std::accumulate(values.begin(), values.end(), 0.0); };
  enum : std::size_t {
    kLoss,
    kRewardSum,
    kRewards,
    kRVerSum,
    kRVers,
    kRStrSum,
    kRStrs,
    kZeroStd,
    kGroups,
    kClipped,
    kTrainedTokens,
    kKl,
    kTisClipped,
    kEntropy,
    kAgreement,
    kFullTokens,
    kRows,
    kGenerated,
    kDaemonCalls,
    kAdmitted,
    kWithFailures,
    kDiagnosticTrials,
    kDiagnosticRecovered,
    kUnjudgedGroups,
    kUnjudgedAnswers,
    kTurns // then passed, then took, per turn
  };
  std::vector<double> sums = {lossValue,
                              total(rewardsFirstTurn),
                              static_cast<double>(rewardsFirstTurn.size()),
                              total(rVerFirstTurn),
                              static_cast<double>(rVerFirstTurn.size()),
                              total(rStrFirstTurn),
                              static_cast<double>(rStrFirstTurn.size()),
                              static_cast<double>(zeroStdGroups),
                              static_cast<double>(groups.size()),
                              clipped,
                              trainedTokens,
                              klSum,
                              tisClipped,
                              entropySum,
                              agreementSum,
                              fullTokens,
                              static_cast<double>(rows.size()),
                              static_cast<double>(generatedTokens),
                              static_cast<double>(daemonCalls),
                              static_cast<double>(admittedAfterFirst),
                              static_cast<double>(groupsWithFailuresAfterFirst),
                              static_cast<double>(diagnosticTrials),
                              static_cast<double>(diagnosticRecovered),
                              static_cast<double>(unjudgedGroups),
                              static_cast<double>(unjudgedAnswers)};
  for (int t = 1; t <= config_.maxTurns; ++t)
    sums.push_back(passedPerTurn[t]);
  for (int t = 1; t <= config_.maxTurns; ++t)
    sums.push_back(tookTurn[t]);
  std::vector<double> seconds = {generateSeconds, rewardSeconds, trainSeconds, since(stepStart)};
  if (parallel_) {
    parallel_->sum(sums);
    parallel_->maximum(seconds);
  }
  auto ratio = [](double part, double whole, json::value otherwise) {
    return whole > 0 ? json::value(part / whole) : otherwise;
  };
  // Every group left out (on every rank alike: the sums are the batch's): a machine that judges nothing
  // trains nothing, and a run that went on would only log empty steps.
  if (sums[kGroups] > 0 && sums[kUnjudgedGroups] == sums[kGroups])
    throw std::runtime_error("grpo: step " + std::to_string(step_ + 1) +
                             ": the reward daemon could not judge any group (its machine's verdicts, after the reward "
                             "client's last attempt; the answers are in completions.jsonl): is another process "
                             "using its GPU?");
  json::object log;
  log["step"] = step_ + 1;
  log["loss"] = sums[kLoss];
  log["reward_mean"] = ratio(sums[kRewardSum], sums[kRewards], 0.0);
  log["r_ver_mean"] = ratio(sums[kRVerSum], sums[kRVers], nullptr);
  log["r_str_mean"] = ratio(sums[kRStrSum], sums[kRStrs], nullptr);
  json::array passRates;
  for (int t = 1; t <= config_.maxTurns; ++t)
    passRates.push_back(ratio(sums[kTurns + t - 1], sums[kTurns + config_.maxTurns + t - 1], nullptr));
  log["pass_rate_per_turn"] = passRates;
  log["frac_reward_zero_std"] = ratio(sums[kZeroStd], sums[kGroups] - sums[kUnjudgedGroups], 0.0); // of judged groups
  // Groups left out because the machine could not judge one of their answers (never scored as anything).
  log["groups_unjudged"] = sums[kUnjudgedGroups];
  log["answers_unjudged"] = sums[kUnjudgedAnswers];
  log["clip_fraction"] = ratio(sums[kClipped], sums[kTrainedTokens], 0.0);
  log["kl"] = ratio(sums[kKl], sums[kTrainedTokens], 0.0);
  log["tis_clipped_fraction"] = ratio(sums[kTisClipped], sums[kTrainedTokens], 0.0);
  log["grad_norm"] = gradNorm;
  log["skipped_updates"] = skippedUpdates;
  log["entropy"] = ratio(sums[kEntropy], sums[kFullTokens], nullptr); // of trained tokens: none, not 0
  // mean exp|logp_train - logp_sample|
  log["logprob_agreement"] = ratio(sums[kAgreement], sums[kFullTokens], 1.0);
  log["learning_rate"] = learningRate;
  log["trained_tokens"] = sums[kFullTokens];
  log["trained_completions"] = static_cast<std::int64_t>(sums[kRows]);
  log["generated_tokens"] = static_cast<std::int64_t>(sums[kGenerated]);
  log["tokens_per_second"] = ratio(sums[kGenerated], seconds[0], 0.0);
  log["seconds"] =
      json::object{{"generate", seconds[0]}, {"reward", seconds[1]}, {"train", seconds[2]}, {"step", seconds[3]}};
  log["dcp_activation"] = ratio(sums[kAdmitted], sums[kWithFailures], nullptr);
  log["dcp_recovery"] = ratio(sums[kDiagnosticRecovered], sums[kDiagnosticTrials], nullptr);
  log["daemon_calls"] = static_cast<std::int64_t>(sums[kDaemonCalls]);
  // This process's device (rank 0's in a data-parallel run): 0 on the CPU.
  log["cuda_peak_bytes"] = json::object{{"generate", generatePeakBytes}, {"train", trainPeakBytes}};
  if (parallel_)
    log["ranks"] = parallel_->size();
  ++step_;
  return log;
}

void GrpoTrainer::run(std::ostream &progress, std::int64_t stopAfter, double stopAfterSeconds) {
  // Every rank runs every step (their collectives meet); rank 0 alone writes
  // the log, the progress and the checkpoints (the weights are the same on all).
  const bool leader = !parallel_ || parallel_->leader();
  std::ofstream log;
  if (leader) {
    fs::create_directories(config_.outDir);
    log.open(fs::path(config_.outDir) / "log.jsonl", std::ios::app);
  }
  const bool terminal = leader && ::isatty(STDERR_FILENO) && &progress == &std::cerr;
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t first = step_;
  const std::int64_t last = stopAfter > 0 ? std::min(config_.steps, step_ + stopAfter) : config_.steps;
  // Whether the time is up, as every rank sees it: ranks that disagreed would wait for each other's collectives.
  const auto timeUp = [&] {
    if (stopAfterSeconds <= 0)
      return false;
    std::vector<double> over{since(start) >= stopAfterSeconds ? 1.0 : 0.0};
    if (parallel_)
      parallel_->maximum(over);
    return over[0] > 0;
  };
  while (step_ < last) {
    const json::object record = step();
    const bool stopping = timeUp();
    if (!leader) {
      if (stopping)
        break;
      continue;
    }
    log << json::serialize(record) << "\n";
    log.flush();
    const double elapsed = since(start);
    const double eta = elapsed / static_cast<double>(step_ - first) * static_cast<double>(config_.steps - step_);
    std::ostringstream line;
    line << "step " << step_ << "/" << config_.steps << "  loss " << record.at("loss").as_double() << "  reward "
         << record.at("reward_mean").as_double() << "  " << record.at("seconds").as_object().at("step").as_double()
         << " s/step  ETA " << static_cast<std::int64_t>(eta) << " s";
    if (terminal) {
      const int width = 30;
      const int filled = static_cast<int>(width * step_ / std::max<std::int64_t>(1, config_.steps));
      progress << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << line.str()
               << std::flush;
    } else {
      progress << line.str() << "\n";
    }
    // A time-limited stop always leaves a checkpoint, whatever checkpoint_every says.
    if ((config_.checkpointEvery > 0 && (step_ % config_.checkpointEvery == 0 || step_ == last)) || stopping)
      saveCheckpoint();
    if (stopping) {
      progress << (terminal ? "\n" : "") << "grpo: stopping after " << static_cast<std::int64_t>(since(start))
               << " s (--stop-after-seconds " << stopAfterSeconds << ")\n";
      break;
    }
  }
  if (terminal)
    progress << "\n";
}

void GrpoTrainer::saveCheckpoint() const {
  saveTrainingCheckpoint(config_.outDir, step_, *model_, *optimizer_, config_.model, config_.toJsonText());
}

} // namespace cudaperf::trainer
