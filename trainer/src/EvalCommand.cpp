// cudaperf-train eval: n samples per task (refined over up to M turns with
// the daemon's feedback), unbiased pass@k (k = 1, 5, 10 where k <= n),
// geometric-mean speedup over correct samples, fast_p (p = 1, 1.5, 2; against
// torch.compile too, for imported KernelBench tasks that have its timing),
// first-turn and cumulative accuracy per turn; each over seeds as mean ± std.
// A JSON report (--out) and a table on stdout.
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/contracts/EvalMetrics.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/KernelPrompt.h"
#include "cudaperf/trainer/PolicyModel.h"
#include "cudaperf/trainer/RewardClient.h"
#include "cudaperf/trainer/Sampler.h"
#include "cudaperf/trainer/TaskSelection.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// One seed: every task's n samples, each with its turn of first pass and speedup.
std::map<std::string, std::vector<SampleOutcome>> evaluateSeed(const trainer::PolicyModel &model,
                                                               const trainer::Tokenizer &tokenizer,
                                                               const std::vector<TaskSpec> &tasks, int samples,
                                                               int turns, trainer::SamplingOptions options,
                                                               trainer::RewardClient &client, std::uint64_t seed) {
  std::map<std::string, std::vector<SampleOutcome>> out;
  const trainer::Sampler sampler(model, &tokenizer);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    std::vector<trainer::Conversation> rows(samples, trainer::Conversation(tokenizer, tasks[t]));
    std::vector<SampleOutcome> outcomes(samples);
    std::vector<int> open(samples);
    for (int i = 0; i < samples; ++i)
      open[i] = i;
    for (int turn = 1; turn <= turns && !open.empty(); ++turn) {
      std::vector<std::vector<std::int64_t>> contexts;
      for (int i : open)
        contexts.push_back(rows[i].ids());
      options.seed = seed * 1000003 + t * 101 + static_cast<std::uint64_t>(turn);
      const auto generated = sampler.generate(contexts, 1, options);
      std::vector<trainer::RewardRequest> requests;
      for (std::size_t k = 0; k < open.size(); ++k) {
        rows[open[k]].addCompletion(generated.completions[k].ids);
        requests.push_back({tasks[t].name, trainer::extractKernelSource(generated.completions[k].text), turn});
      }
      const auto answers = client.evaluateAll(requests);
      std::vector<int> still;
      for (std::size_t k = 0; k < open.size(); ++k) {
        const auto &answer = answers[k];
        if (!answer.ok && (answer.httpStatus == 0 || answer.httpStatus >= 500))
          throw std::runtime_error("eval: no answer for task '" + tasks[t].name + "': " + answer.error);
        if (answer.ok && answer.status == "ok") {
          outcomes[open[k]] = {turn, answer.speedup, answer.speedupVsTorchCompile};
        } else if (turn < turns) {
          rows[open[k]].addFeedback(answer.ok ? answer.feedback : answer.error);
          still.push_back(open[k]);
        }
      }
      open = std::move(still);
    }
    out[tasks[t].name] = std::move(outcomes);
  }
  return out;
}

} // namespace

int evalCommand(const std::vector<std::string> &args) {
  const Flags flags =
      parseFlags(args, {"model", "tasks-dir", "tasks", "samples", "turns", "seeds", "daemon", "temperature", "top-p",
                        "max-new-tokens", "device", "dtype", "out", "concurrency"});
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
  for (const auto &seedText : seeds) {
    const auto outcomes = evaluateSeed(model, tokenizer, tasks, samples, turns, options, client, std::stoull(seedText));
    std::vector<SampleOutcome> all;
    for (int k : {1, 5, 10}) {
      if (k > samples)
        continue;
      double sum = 0;
      for (const auto &[task, list] : outcomes) {
        int correct = 0;
        for (const auto &s : list)
          correct += s.passedTurn.has_value();
        sum += passAtK(samples, correct, k).value_or(0);
      }
      perSeed["pass@" + std::to_string(k)].push_back(sum / outcomes.size());
    }
    for (const auto &[task, list] : outcomes)
      all.insert(all.end(), list.begin(), list.end());
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
          timed.insert(timed.end(), outcomes.at(task.name).begin(), outcomes.at(task.name).end());
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
  if (flags.count("out"))
    std::ofstream(textFlag(flags, "out")) << json::serialize(report) << "\n";
  return 0;
}

} // namespace cudaperf
