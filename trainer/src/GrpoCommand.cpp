// cudaperf-train grpo --config FILE: GRPO against cudaperfd (docs/training.md).
// cudaperf-train sft --config FILE: the supervised warm start.
// cudaperf-train init --config config.json --tokenizer tokenizer.json --out DIR:
// a model of that shape with random weights, to train from scratch.
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/DataParallel.h"
#include "cudaperf/trainer/GrpoTrainer.h"
#include "cudaperf/trainer/RankLauncher.h"
#include "cudaperf/trainer/SftTrainer.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace cudaperf {

int grpoCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"config", "steps", "resume", "stop-after", "stop-after-seconds", "nproc"});
  if (!flags.count("config"))
    throw std::invalid_argument("--config FILE.json is required");
  const auto place = trainer::ProcessPlace::fromEnvironment();
  const double processes = numberFlag(flags, "nproc", 1);
  if (processes != std::floor(processes) || processes < 1)
    throw std::invalid_argument("--nproc: expected a whole number of processes, 1 or more");
  if (processes > 1) {
    if (place)
      throw std::invalid_argument("--nproc inside a rank of a run (WORLD_SIZE is set)");
    // This program again, once per rank: the same flags but --nproc.
    std::vector<std::string> rank{"grpo"};
    for (const auto &arg : trainer::withoutFlag(args, "--nproc"))
      rank.push_back(arg);
    return trainer::launchRanks(static_cast<int>(processes), "/proc/self/exe", rank);
  }
  trainer::GrpoConfig config = trainer::GrpoConfig::fromFile(textFlag(flags, "config"));
  // What one changes from the command line: run longer, resume, or stop after
  // N steps of this invocation (a time-limited job; the schedule stays the run's).
  if (flags.count("steps"))
    config.steps = static_cast<std::int64_t>(numberFlag(flags, "steps", 0));
  if (flags.count("resume"))
    config.resume = textFlag(flags, "resume");
  std::unique_ptr<trainer::DataParallel> parallel;
  if (place) {
    if (config.device == "cuda") // a rank per GPU
      config.device = "cuda:" + std::to_string(place->localRank);
    parallel = std::make_unique<trainer::DataParallel>(*place);
  }
  const bool leader = !parallel || parallel->leader();
  if (leader)
    std::cerr << "cudaperf-train grpo: " << config.toJsonText()
              << (parallel ? " over " + std::to_string(parallel->size()) + " ranks" : std::string()) << "\n";
  trainer::RewardClientOptions client;
  client.urls = config.daemonUrls;
  client.concurrency = config.daemonConcurrency;
  trainer::DaemonRewards rewards(client);
  trainer::GrpoTrainer trainer(config, rewards, parallel.get());
  trainer.run(std::cerr, static_cast<std::int64_t>(numberFlag(flags, "stop-after", 0)),
              numberFlag(flags, "stop-after-seconds", 0));
  if (leader)
    std::cerr << "cudaperf-train grpo: " << trainer.stepsDone() << " steps; log in " << config.outDir << "/log.jsonl\n";
  return 0;
}

int sftCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"config", "resume", "stop-after", "stop-after-seconds"});
  if (!flags.count("config"))
    throw std::invalid_argument("--config FILE.json is required");
  trainer::SftConfig config = trainer::SftConfig::fromFile(textFlag(flags, "config"));
  if (flags.count("resume"))
    config.resume = textFlag(flags, "resume");
  std::cerr << "cudaperf-train sft: " << config.toJsonText() << "\n";
  trainer::SftTrainer trainer(config);
  trainer.run(std::cerr, static_cast<std::int64_t>(numberFlag(flags, "stop-after", 0)),
              numberFlag(flags, "stop-after-seconds", 0));
  return 0;
}

int initCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"config", "tokenizer", "out", "seed", "dtype"});
  const std::string out = textFlag(flags, "out");
  if (!flags.count("config") || out.empty())
    throw std::invalid_argument("--config config.json and --out DIR are required");
  const auto config = trainer::ModelConfig::fromFile(textFlag(flags, "config"));
  const torch::Dtype type = trainer::dtypeNamed(textFlag(flags, "dtype", "f32"));
  const auto model =
      trainer::PolicyModel::random(config, torch::kCPU, type, static_cast<std::uint64_t>(numberFlag(flags, "seed", 0)));
  model.save(out);
  if (flags.count("tokenizer"))
    std::filesystem::copy_file(textFlag(flags, "tokenizer"), std::filesystem::path(out) / "tokenizer.json",
                               std::filesystem::copy_options::overwrite_existing);
  std::cout << out << ": " << model.parameterCount() << " parameters\n";
  return 0;
}

} // namespace cudaperf
