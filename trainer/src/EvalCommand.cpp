// cudaperf-train eval: n samples per task (refined over up to M turns with
// the daemon's feedback), unbiased pass@k (k = 1, 5, 10 where k <= n),
// geometric-mean speedup over correct samples, fast_p (p = 1, 1.5, 2; against
// torch.compile too, for imported KernelBench tasks that have its timing),
// first-turn and cumulative accuracy per turn, the mean reward of the first
// answer and of each sample's best turn; each over seeds as mean ± std. A JSON
// report (--out, with each task's correct samples per seed) and a table on stdout.
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/contracts/EvalMetrics.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/CompletionRecord.h"
#include "cudaperf/trainer/DataOrder.h"
#include "cudaperf/trainer/KernelPrompt.h"
#include "cudaperf/trainer/PolicyModel.h"
#include "cudaperf/trainer/RewardClient.h"
#include "cudaperf/trainer/Sampler.h"
#include "cudaperf/trainer/TaskSelection.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// One task's n samples: each with its turn of first pass and speedup, and its rewards.
struct TaskOutcomes {
  std::vector<SampleOutcome> samples;
  // R of the first answer; the best R over its turns. NaN: no reward (the daemon refused the request: a
  // 4xx, say a source over its size limit; never counted as 0, which would rank above a failed compile).
  std::vector<double> firstTurnReward, bestReward;
};

// One seed: every task's n samples, refined over the turns. Each turn generates for every open sample
// of every task together (Sampler::generateInChunks) and sends all their answers to the daemon at once (a task at a
// time kept the GPU and the daemon idle in turn).
std::map<std::string, TaskOutcomes> evaluateSeed(const trainer::PolicyModel &model, const trainer::Tokenizer &tokenizer,
                                                 const std::vector<TaskSpec> &tasks, int samples, int turns,
                                                 trainer::SamplingOptions options, trainer::RewardClient &client,
                                                 std::uint64_t seed, std::ostream *completions) {
  struct Row {
    std::size_t task;
    int sample;
    trainer::Conversation conversation;
  };
  std::map<std::string, TaskOutcomes> out;
  std::vector<Row> rows;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    auto &task = out[tasks[t].name];
    task.samples.resize(samples);
    task.firstTurnReward.assign(samples, std::numeric_limits<double>::quiet_NaN());
    task.bestReward.assign(samples, std::numeric_limits<double>::quiet_NaN());
    for (int i = 0; i < samples; ++i)
      rows.push_back({t, i, trainer::Conversation(tokenizer, tasks[t])});
  }
  const trainer::Sampler sampler(model, &tokenizer);
  std::vector<std::size_t> open(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    open[i] = i;
  for (int turn = 1; turn <= turns && !open.empty(); ++turn) {
    std::vector<std::vector<std::int64_t>> contexts;
    for (std::size_t i : open)
      contexts.push_back(rows[i].conversation.ids());
    // A sample's draws from its seed, turn and row alone: the same whatever the chunks.
    options.rowSeeds.clear();
    for (std::size_t i : open)
      options.rowSeeds.push_back(trainer::mixSeed(seed, static_cast<std::uint64_t>(turn), i));
    const auto generated = sampler.generateInChunks(contexts, options);
    std::vector<trainer::RewardRequest> requests;
    for (std::size_t k = 0; k < open.size(); ++k) {
      Row &row = rows[open[k]];
      row.conversation.addCompletion(generated.completions[k].ids);
      requests.push_back({tasks[row.task].name, trainer::extractKernelSource(generated.completions[k].text), turn});
    }
    const auto answers = client.evaluateAll(requests);
    for (std::size_t k = 0; completions && k < open.size(); ++k) {
      json::object record = trainer::completionRecord(requests[k], answers[k], true);
      record["seed"] = seed;
      record["sample"] = rows[open[k]].sample;
      *completions << json::serialize(record) << "\n";
    }
    std::vector<std::size_t> still;
    for (std::size_t k = 0; k < open.size(); ++k) {
      const auto &answer = answers[k];
      Row &row = rows[open[k]];
      if (!answer.ok && !(answer.httpStatus >= 400 && answer.httpStatus < 500)) // only a refusal is the answer's
        throw std::runtime_error("eval: no answer for task '" + tasks[row.task].name + "': " + answer.error);
      auto &task = out[tasks[row.task].name];
      const double reward = answer.ok ? answer.reward.value_or(std::numeric_limits<double>::quiet_NaN())
                                      : std::numeric_limits<double>::quiet_NaN();
      if (turn == 1)
        task.firstTurnReward[row.sample] = reward;
      double &best = task.bestReward[row.sample];
      if (std::isfinite(reward) && !(best >= reward)) // NaN so far, or lower
        best = reward;
      if (answer.ok && answer.status == "ok") {
        task.samples[row.sample] = {turn, answer.speedup, answer.speedupVsTorchCompile};
      } else if (turn < turns) {
        row.conversation.addFeedback(answer.ok ? answer.feedback : answer.error);
        still.push_back(open[k]);
      }
    }
    open = std::move(still);
  }
  return out;
}

} // namespace

int evalCommand(const std::vector<std::string> &args) {
  const Flags flags =
      parseFlags(args, {"model", "tasks-dir", "tasks", "samples", "turns", "seeds", "daemon", "temperature", "top-p",
                        "max-new-tokens", "device", "dtype", "out", "concurrency", "completions-out"});
  const std::string folder = textFlag(flags, "model");
  if (folder.empty())
    throw std::invalid_argument("--model DIR is required");
  const int samples = static_cast<int>(numberFlag(flags, "samples", 10));
  const int turns = static_cast<int>(numberFlag(flags, "turns", 1));
  if (samples < 1 || turns < 1)
    throw std::invalid_argument("--samples and --turns must be at least 1");
  const torch::Device device = trainer::deviceNamed(textFlag(flags, "device", "cpu"));
  const trainer::PolicyModel model = trainer::PolicyModel::load(
      folder, device, trainer::dtypeNamed(textFlag(flags, "dtype", device.is_cuda() ? "bf16" : "f32")));
  const trainer::Tokenizer tokenizer = trainer::Tokenizer::fromFolder(folder);
  const std::string tasksDir = textFlag(flags, "tasks-dir", "tasks");
  const std::vector<TaskSpec> tasks = trainer::loadTasks(tasksDir, commaList(textFlag(flags, "tasks")));
  trainer::SamplingOptions options;
  options.temperature = numberFlag(flags, "temperature", 1.0);
  options.topP = numberFlag(flags, "top-p", 1.0);
  options.maxNewTokens = static_cast<std::int64_t>(numberFlag(flags, "max-new-tokens", 1024));
  trainer::stopAtEndOfTurn(options, model.config(), tokenizer);
  trainer::RewardClientOptions clientOptions;
  clientOptions.urls = commaList(textFlag(flags, "daemon", "http://127.0.0.1:8742"));
  clientOptions.concurrency = static_cast<int>(numberFlag(flags, "concurrency", 8));
  trainer::RewardClient client(clientOptions);

  // Per seed, each metric (averaged over tasks for pass@k); then mean ± std over seeds.
  std::map<std::string, std::vector<double>> perSeed;
  std::vector<std::string> seeds = commaList(textFlag(flags, "seeds", "0"));
  json::object correctPerTask; // task -> correct samples, one count per seed
  // Every sample's every turn: its source and the daemon's verdict (CompletionRecord.h).
  std::optional<std::ofstream> completions;
  if (flags.count("completions-out")) {
    completions.emplace(textFlag(flags, "completions-out"));
    if (!*completions)
      throw std::invalid_argument("--completions-out: cannot write " + textFlag(flags, "completions-out"));
  }
  for (const auto &seedText : seeds) {
    const auto outcomes = evaluateSeed(model, tokenizer, tasks, samples, turns, options, client, std::stoull(seedText),
                                       completions ? &*completions : nullptr);
    std::vector<SampleOutcome> all;
    // Mean rewards over the samples that have one; how many first answers had none, beside them.
    double firstTurnReward = 0, bestReward = 0;
    int firstTurnRewarded = 0, bestRewarded = 0;
    for (const auto &[task, outcome] : outcomes)
      for (int i = 0; i < samples; ++i) {
        if (std::isfinite(outcome.firstTurnReward[i])) {
          firstTurnReward += outcome.firstTurnReward[i];
          ++firstTurnRewarded;
        }
        if (std::isfinite(outcome.bestReward[i])) {
          bestReward += outcome.bestReward[i];
          ++bestRewarded;
        }
      }
    if (firstTurnRewarded > 0)
      perSeed["reward_turn_1"].push_back(firstTurnReward / firstTurnRewarded);
    if (bestRewarded > 0)
      perSeed["reward_best_turn"].push_back(bestReward / bestRewarded);
    perSeed["unrewarded_turn_1"].push_back(static_cast<double>(samples * outcomes.size() - firstTurnRewarded));
    for (int k : {1, 5, 10}) {
      if (k > samples)
        continue;
      double sum = 0;
      for (const auto &[task, outcome] : outcomes) {
        int correct = 0;
        for (const auto &s : outcome.samples)
          correct += s.passedTurn.has_value();
        sum += passAtK(samples, correct, k).value_or(0);
      }
      perSeed["pass@" + std::to_string(k)].push_back(sum / outcomes.size());
    }
    for (const auto &[task, outcome] : outcomes) {
      all.insert(all.end(), outcome.samples.begin(), outcome.samples.end());
      const auto correct = std::count_if(outcome.samples.begin(), outcome.samples.end(),
                                         [](const SampleOutcome &s) { return s.passedTurn.has_value(); });
      auto &counts = correctPerTask[task];
      if (!counts.is_array())
        counts.emplace_array();
      counts.as_array().push_back(static_cast<std::int64_t>(correct));
    }
    // The geomean speedup and fast_p, under names ending in `suffix`.
    const auto speedupMetrics = [&](const std::vector<SampleOutcome> &samples, const std::string &suffix) {
      if (auto g = geomeanSpeedup(samples))
        perSeed["geomean_speedup" + suffix].push_back(*g);
      for (double p : {1.0, 1.5, 2.0}) {
        char name[16];
        std::snprintf(name, sizeof name, "fast_%g", p);
        perSeed[name + suffix].push_back(fastP(samples, p));
      }
    };
    speedupMetrics(all, "");
    // KernelBench's second table: against torch.compile, over the samples of the imported tasks that have
    // its timing (torch_compile.json), in every seed.
    if (std::any_of(tasks.begin(), tasks.end(), [](const TaskSpec &task) { return task.torchCompile; })) {
      std::vector<SampleOutcome> timed;
      for (const auto &task : tasks)
        if (task.torchCompile)
          timed.insert(timed.end(), outcomes.at(task.name).samples.begin(), outcomes.at(task.name).samples.end());
      speedupMetrics(againstTorchCompile(timed), "_vs_torch_compile");
    }
    const auto first = firstTurnAccuracy(all, turns), cumulative = cumulativeAccuracy(all, turns);
    for (int t = 1; t <= turns; ++t) {
      perSeed["accuracy_turn_" + std::to_string(t)].push_back(first[t - 1]);
      perSeed["cumulative_accuracy_turn_" + std::to_string(t)].push_back(cumulative[t - 1]);
    }
  }
  json::object report{{"model", folder},
                      {"tasks", static_cast<std::int64_t>(tasks.size())},
                      {"samples", samples},
                      {"turns", turns},
                      {"seeds", static_cast<std::int64_t>(seeds.size())}};
  json::object metrics;
  std::printf("%-30s %12s %10s\n", "metric", "mean", "std");
  for (const auto &[name, values] : perSeed) {
    const MeanStd m = meanStd(values);
    metrics[name] = json::object{{"mean", m.mean}, {"std", m.std}, {"per_seed", json::value_from(values)}};
    std::printf("%-30s %12.4f %10.4f\n", name.c_str(), m.mean, m.std);
  }
  report["metrics"] = metrics;
  report["correct_per_task"] = correctPerTask;
  if (flags.count("out"))
    std::ofstream(textFlag(flags, "out")) << json::serialize(report) << "\n";
  return 0;
}

} // namespace cudaperf
