#include "cudaperf/daemon/DaemonConfig.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace json = boost::json;

namespace {

[[noreturn]] void fail(const std::string &where, const std::string &why) {
  throw std::invalid_argument(where + ": " + why);
}

std::vector<int> parseGpus(const std::string &text, const std::string &where) {
  std::vector<int> gpus;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ','))
    if (!item.empty()) {
      try {
        gpus.push_back(std::stoi(item));
      } catch (const std::exception &) {
        fail(where, "'" + item + "' is not a GPU index");
      }
    }
  return gpus;
}

void setListen(DaemonConfig &config, const std::string &text, const std::string &where) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    fail(where, "expected HOST:PORT, got '" + text + "'");
  config.listenAddress = text.substr(0, colon);
  try {
    const int port = std::stoi(text.substr(colon + 1));
    if (port < 0 || port > 65535)
      throw std::out_of_range("port");
    config.port = static_cast<unsigned short>(port);
  } catch (const std::exception &) {
    fail(where, "bad port in '" + text + "'");
  }
}

// One setting by name, from text (flags) or JSON (file).
void apply(DaemonConfig &config, const std::string &key, const json::value &value, const std::string &where) {
  auto text = [&]() -> std::string {
    if (value.is_string())
      return std::string(value.get_string());
    if (value.is_number())
      return json::serialize(value);
    fail(where, "expected a string");
  };
  auto number = [&]() -> double {
    if (value.is_number())
      return value.to_number<double>();
    try {
      std::size_t used = 0;
      const double parsed = std::stod(text(), &used);
      if (used == text().size())
        return parsed;
    } catch (const std::exception &) {
    }
    fail(where, "expected a number");
  };
  auto boolean = [&]() -> bool {
    if (value.is_bool())
      return value.get_bool();
    if (text() == "true" || text() == "false")
      return text() == "true";
    fail(where, "expected true or false");
  };
  auto positive = [&]() {
    const double n = number();
    if (!(n > 0))
      fail(where, "must be positive");
    return n;
  };
  if (key == "listen")
    setListen(config, text(), where);
  else if (key == "tasks")
    config.tasksDir = text();
  else if (key == "db")
    config.dbFile = text();
  else if (key == "cache")
    config.cacheDir = text();
  else if (key == "ranker")
    config.rankerFile = text();
  else if (key == "judge")
    config.judge = text();
  else if (key == "analysis_server")
    config.analysisServer = text();
  else if (key == "analysis_args") {
    if (value.is_array()) {
      config.analysisArgs.clear();
      for (const auto &arg : value.get_array()) {
        if (!arg.is_string())
          fail(where, "expected a list of strings");
        config.analysisArgs.emplace_back(arg.get_string());
      }
    } else {
      config.analysisArgs.push_back(text()); // a flag adds one
    }
  } else if (key == "analysis_timeout_seconds")
    config.analysisTimeoutSeconds = positive();
  else if (key == "analysis_memory_bytes")
    config.analysisMemoryBytes = static_cast<std::uint64_t>(positive());
  else if (key == "analysis_servers")
    config.analysisServers = static_cast<unsigned>(positive());
  else if (key == "insecure_no_isolation")
    config.insecureNoIsolation = boolean();
  else if (key == "nvcc")
    config.nvcc = text();
  else if (key == "arch")
    config.arch = text();
  else if (key == "gpus") {
    config.gpusGiven = true;
    if (value.is_array()) {
      config.gpus.clear();
      for (const auto &gpu : value.get_array()) {
        if (!gpu.is_int64())
          fail(where, "expected GPU indices");
        config.gpus.push_back(static_cast<int>(gpu.get_int64()));
      }
    } else {
      config.gpus = parseGpus(text(), where);
    }
  } else if (key == "cpu_workers")
    config.cpuWorkers = static_cast<unsigned>(number());
  else if (key == "judge_cpus") {
    const double cpus = number();
    if (cpus < 0 || cpus > 1024 || cpus != static_cast<double>(static_cast<unsigned>(cpus)))
      fail(where, "expected a whole number of CPUs from 0 to 1024");
    config.judgeCpus = static_cast<unsigned>(cpus);
  } else if (key == "http_threads")
    config.httpThreads = static_cast<unsigned>(positive());
  else if (key == "max_body_bytes")
    config.maxBodyBytes = static_cast<std::size_t>(positive());
  else if (key == "queue_capacity")
    config.queueCapacity = static_cast<std::size_t>(positive());
  else if (key == "request_deadline_seconds")
    config.requestDeadlineSeconds = positive();
  else if (key == "idle_timeout_seconds")
    config.idleTimeoutSeconds = positive();
  else if (key == "harness_wall_seconds")
    config.harnessWallSeconds = positive();
  else if (key == "worker_batch")
    config.workerBatch = static_cast<unsigned>(positive());
  else if (key == "baseline_max_age_seconds")
    config.baselineMaxAgeSeconds = positive();
  else if (key == "judge_max_evaluations")
    config.judgeMaxEvaluations = static_cast<std::size_t>(positive());
  else if (key == "seed")
    config.seed = static_cast<std::uint64_t>(number());
  else if (key == "runs")
    config.runs = static_cast<int>(positive());
  else if (key == "warmup")
    config.warmup = static_cast<int>(number());
  else if (key == "min_runs")
    config.minRuns = static_cast<int>(positive());
  else if (key == "median_half_width") {
    config.medianHalfWidth = number();
    if (!(config.medianHalfWidth >= 0 && config.medianHalfWidth < 1))
      fail(where, "expected a fraction of the median in [0, 1) (0: every call of runs)");
  } else if (key == "log_level") {
    config.logLevel = text();
    if (config.logLevel != "trace" && config.logLevel != "debug" && config.logLevel != "info" &&
        config.logLevel != "warn" && config.logLevel != "error")
      fail(where, "expected trace, debug, info, warn or error");
  } else if (key == "precompiled_headers")
    config.precompiledHeaders = boolean();
  else if (key == "prepare_tasks_at_start")
    config.prepareTasksAtStart = boolean();
  else if (key == "speedup_baseline") {
    const std::string baseline = text();
    if (baseline != "cpu" && baseline != "gpu")
      fail(where, "expected cpu or gpu");
    config.reward.baseline = baseline == "cpu" ? SpeedupBaseline::Cpu : SpeedupBaseline::Gpu;
  } else if (key == "alpha_comp")
    config.reward.alphaComp = number();
  else if (key == "alpha_wrong")
    config.reward.alphaWrong = number();
  else if (key == "alpha_speed")
    config.reward.alphaSpeed = number();
  else if (key == "alpha_cv")
    config.reward.alphaCv = number();
  else if (key == "s_min")
    config.reward.speedupMin = number();
  else if (key == "s_max")
    config.reward.speedupMax = number();
  else if (key == "lambda_str")
    config.reward.lambdaStr = number();
  else
    fail(where, "unknown setting '" + key + "'");
}

} // namespace

DaemonConfig loadDaemonConfig(const std::filesystem::path &file, DaemonConfig config) {
  std::ifstream stream(file);
  if (!stream)
    fail(file.string(), "cannot read the config file");
  std::stringstream text;
  text << stream.rdbuf();
  boost::system::error_code error;
  const json::value document = json::parse(text.str(), error);
  if (error || !document.is_object())
    fail(file.string(), error ? "invalid JSON: " + error.message() : "expected a JSON object");
  for (const auto &[key, value] : document.get_object()) {
    if (key == "reward" && value.is_object()) {
      for (const auto &[rewardKey, rewardValue] : value.get_object())
        apply(config, std::string(rewardKey), rewardValue, file.string() + ": key reward." + std::string(rewardKey));
      continue;
    }
    apply(config, std::string(key), value, file.string() + ": key " + std::string(key));
  }
  return config;
}

DaemonConfig configFromArguments(const std::vector<std::string> &arguments) {
  DaemonConfig config;
  for (std::size_t i = 0; i + 1 < arguments.size(); ++i)
    if (arguments[i] == "--config")
      config = loadDaemonConfig(arguments[i + 1], config);
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string &flag = arguments[i];
    if (flag.rfind("--", 0) != 0)
      fail("argument '" + flag + "'", "expected a --flag");
    if (i + 1 >= arguments.size())
      fail(flag, "needs a value");
    const std::string value = arguments[++i];
    if (flag == "--config")
      continue;
    std::string key = flag.substr(2);
    std::replace(key.begin(), key.end(), '-', '_');
    apply(config, key, json::value(value), "flag " + flag);
  }
  // Resolved once, against the directory the daemon starts in: the sandboxed
  // compiles and the harness run elsewhere and would miss a relative path.
  for (auto *path :
       {&config.tasksDir, &config.dbFile, &config.cacheDir, &config.rankerFile, &config.judge, &config.analysisServer})
    if (!path->empty())
      *path = std::filesystem::absolute(*path);
  return config;
}

} // namespace cudaperf
