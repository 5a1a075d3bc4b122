#include "cudaperf/trainer/GrpoConfig.h"

#include "cudaperf/trainer/TextFile.h"

#include <boost/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <variant>

namespace cudaperf::trainer {
namespace json = boost::json;

namespace {

using Field =
    std::variant<std::string *, int *, double *, bool *, std::int64_t *, std::uint64_t *, std::vector<std::string> *>;

// One table for reading and writing: the JSON key of each member.
std::vector<std::pair<const char *, Field>> fields(GrpoConfig &c) {
  return {{"model", &c.model},
          {"tasks_dir", &c.tasksDir},
          {"tasks", &c.tasks},
          {"out_dir", &c.outDir},
          {"device", &c.device},
          {"dtype", &c.dtype},
          {"seed", &c.seed},
          {"prompts_per_step", &c.promptsPerStep},
          {"group", &c.group},
          {"max_turns", &c.maxTurns},
          {"temperature", &c.temperature},
          {"top_p", &c.topP},
          {"top_k", &c.topK},
          {"max_new_tokens", &c.maxNewTokens},
          {"max_context_tokens", &c.maxContextTokens},
          {"daemon_urls", &c.daemonUrls},
          {"daemon_concurrency", &c.daemonConcurrency},
          {"advantage", &c.advantage},
          {"gamma", &c.gamma},
          {"rank_tie_break_by_speedup", &c.rankTieBreakBySpeedup},
          {"dcp_tau_min", &c.dcpTauMin},
          {"dcp_tau_max", &c.dcpTauMax},
          {"dcp_diagnostic", &c.dcpDiagnostic},
          {"filter_zero_std", &c.filterZeroStd},
          {"loss_aggregation", &c.lossAggregation},
          {"eps_low", &c.epsLow},
          {"eps_high", &c.epsHigh},
          {"beta", &c.beta},
          {"tis_cap", &c.tisCap},
          {"updates_per_batch", &c.updatesPerBatch},
          {"micro_batch", &c.microBatch},
          {"learning_rate", &c.learningRate},
          {"weight_decay", &c.weightDecay},
          {"grad_clip", &c.gradClip},
          {"min_lr_ratio", &c.minLrRatio},
          {"warmup_steps", &c.warmupSteps},
          {"steps", &c.steps},
          {"checkpoint_every", &c.checkpointEvery},
          {"resume", &c.resume}};
}

[[noreturn]] void fail(const std::string &origin, const std::string &key, const std::string &what) {
  throw std::invalid_argument(origin + ": '" + key + "' " + what);
}

double numberOf(const json::value &value, const std::string &origin, const std::string &key) {
  if (!value.is_number())
    fail(origin, key, "must be a number");
  return value.to_number<double>();
}

std::int64_t integerOf(const json::value &value, const std::string &origin, const std::string &key) {
  const double n = numberOf(value, origin, key);
  if (n != std::floor(n))
    fail(origin, key, "must be an integer");
  return static_cast<std::int64_t>(n);
}

} // namespace

GrpoConfig GrpoConfig::fromFile(const std::string &path) { return fromJsonText(readTextFile(path), path); }

GrpoConfig GrpoConfig::fromJsonText(const std::string &text, const std::string &origin) {
  json::value parsed;
  try {
    parsed = json::parse(text);
  } catch (const std::exception &error) {
    throw std::invalid_argument(origin + ": not JSON: " + error.what());
  }
  if (!parsed.is_object())
    throw std::invalid_argument(origin + ": not a JSON object");
  GrpoConfig config;
  auto table = fields(config);
  for (const auto &[key, value] : parsed.as_object()) {
    const std::string name(key);
    auto it = std::find_if(table.begin(), table.end(), [&](const auto &f) { return name == f.first; });
    if (it == table.end())
      fail(origin, name, "is not a setting (see docs/training.md)");
    std::visit(
        [&](auto *member) {
          using T = std::remove_pointer_t<decltype(member)>;
          if constexpr (std::is_same_v<T, std::string>) {
            if (!value.is_string())
              fail(origin, name, "must be a string");
            *member = std::string(value.as_string());
          } else if constexpr (std::is_same_v<T, bool>) {
            if (!value.is_bool())
              fail(origin, name, "must be true or false");
            *member = value.as_bool();
          } else if constexpr (std::is_same_v<T, double>) {
            *member = numberOf(value, origin, name);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (!value.is_array())
              fail(origin, name, "must be an array of strings");
            member->clear();
            for (const auto &item : value.as_array()) {
              if (!item.is_string())
                fail(origin, name, "must be an array of strings");
              member->push_back(std::string(item.as_string()));
            }
          } else {
            *member = static_cast<T>(integerOf(value, origin, name));
          }
        },
        it->second);
  }
  if (config.model.empty())
    fail(origin, "model", "is required (a Hugging Face folder)");
  if (config.group < 1 || config.promptsPerStep < 1 || config.maxTurns < 1 || config.microBatch < 1 ||
      config.updatesPerBatch < 1 || config.steps < 0 || config.maxNewTokens < 1)
    throw std::invalid_argument(origin + ": group, prompts_per_step, max_turns, micro_batch, updates_per_batch and "
                                         "max_new_tokens must be at least 1, steps at least 0");
  if (config.temperature <= 0)
    fail(origin, "temperature", "must be positive for training (the log-probs need a distribution)");
  return config;
}

std::string GrpoConfig::toJsonText() const {
  GrpoConfig copy = *this;
  json::object out;
  for (const auto &[key, field] : fields(copy))
    std::visit(
        [&](auto *member) {
          using T = std::remove_pointer_t<decltype(member)>;
          if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            json::array items;
            for (const auto &item : *member)
              items.push_back(json::value(item));
            out[key] = std::move(items);
          } else {
            out[key] = *member;
          }
        },
        field);
  return json::serialize(out);
}

} // namespace cudaperf::trainer
