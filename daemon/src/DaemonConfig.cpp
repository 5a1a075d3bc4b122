#include "cudaperf/daemon/DaemonConfig.h"

#include "cudaperf/contracts/CommandLine.h"
#include "cudaperf/contracts/JsonFieldReader.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace json = boost::json;

namespace {

[[noreturn]] void fail(const std::string &where, const std::string &why) {
  throw std::invalid_argument(where + ": " + why);
}

// One setting's value, from the JSON file (typed) or a flag (text): numbers
// and booleans are also read from a flag's text.
class SettingValue {
public:
  SettingValue(const json::value &value, std::string where)
      : value_(value), where_(std::move(where)),
        fields_([this](const std::string &, const std::string &why) { cudaperf::fail(where_, why); }) {}

  [[noreturn]] void fail(const std::string &why) const { cudaperf::fail(where_, why); }
  const json::value &json() const { return value_; }
  const std::string &where() const { return where_; }

  std::string text() const { return value_.is_number() ? json::serialize(value_) : fields_.string(value_, ""); }
  double number() const {
    if (!value_.is_string())
      return fields_.number(value_, "");
    const std::string written = text();
    try {
      std::size_t used = 0;
      const double parsed = std::stod(written, &used);
      if (used == written.size())
        return parsed;
    } catch (const std::exception &) {
    }
    fail("must be a number, got '" + written + "'");
  }
  double positive() const {
    const double n = number();
    if (!(n > 0))
      fail("must be positive");
    return n;
  }
  double nonNegative() const {
    const double n = number();
    if (!(n >= 0))
      fail("must be 0 or more");
    return n;
  }
  bool boolean() const {
    if (!value_.is_string())
      return fields_.boolean(value_, "");
    if (text() != "true" && text() != "false")
      fail("must be true or false");
    return text() == "true";
  }
  // A JSON list of strings, or one flag's text.
  std::vector<std::string> strings() const {
    return value_.is_array() ? fields_.strings(value_, "") : std::vector<std::string>{text()};
  }

private:
  const json::value &value_;
  std::string where_;
  JsonFieldReader fields_;
};

std::vector<int> parseGpus(const SettingValue &value) {
  std::vector<int> gpus;
  if (value.json().is_array()) {
    for (const auto &gpu : value.json().get_array()) {
      if (!gpu.is_int64())
        value.fail("must be a list of GPU indices");
      gpus.push_back(static_cast<int>(gpu.get_int64()));
    }
    return gpus;
  }
  std::stringstream list(value.text());
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty()) {
      try {
        gpus.push_back(std::stoi(item));
      } catch (const std::exception &) {
        value.fail("'" + item + "' is not a GPU index");
      }
    }
  return gpus;
}

void setListen(DaemonConfig &config, const SettingValue &value) {
  const std::string text = value.text();
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    value.fail("expected HOST:PORT, got '" + text + "'");
  config.listenAddress = text.substr(0, colon);
  try {
    const int port = std::stoi(text.substr(colon + 1));
    if (port < 0 || port > 65535)
      throw std::out_of_range("port");
    config.port = static_cast<unsigned short>(port);
  } catch (const std::exception &) {
    value.fail("bad port in '" + text + "'");
  }
}

std::string oneOf(const SettingValue &value, const std::vector<std::string> &choices) {
  const std::string text = value.text();
  if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
    std::string names;
    for (const auto &choice : choices)
      names += (names.empty() ? "" : ", ") + choice;
    value.fail("expected one of " + names + ", got '" + text + "'");
  }
  return text;
}

// Every setting once: its key (a flag is --key with dashes), what it is for
// (--help; docs/api.md has the long form) and how it is read.
struct Setting {
  const char *key;
  const char *help;
  std::function<void(DaemonConfig &, const SettingValue &)> apply;
};

using C = DaemonConfig;
using V = SettingValue;

const std::vector<Setting> &settings() {
  static const std::vector<Setting> table = {
      {"listen", "HOST:PORT to serve on", setListen},
      {"tasks", "the task suite's folder", [](C &c, const V &v) { c.tasksDir = v.text(); }},
      {"db", "the SQLite store", [](C &c, const V &v) { c.dbFile = v.text(); }},
      {"cache", "compiled candidates, references, reference outputs", [](C &c, const V &v) { c.cacheDir = v.text(); }},
      {"ranker", "ranker.json: enables r_str", [](C &c, const V &v) { c.rankerFile = v.text(); }},
      {"judge", "the trusted judge program", [](C &c, const V &v) { c.judge = v.text(); }},
      {"analysis_server", "the analysis server program", [](C &c, const V &v) { c.analysisServer = v.text(); }},
      {"analysis_args", "one more Clang flag for every analysis (repeatable)",
       [](C &c, const V &v) {
         const auto args = v.strings();
         if (v.json().is_array())
           c.analysisArgs = args; // a file's list replaces, a flag adds one
         else
           c.analysisArgs.insert(c.analysisArgs.end(), args.begin(), args.end());
       }},
      {"analysis_timeout_seconds", "an analysis past it is stopped",
       [](C &c, const V &v) { c.analysisTimeoutSeconds = v.positive(); }},
      {"analysis_memory_bytes", "address-space limit of an analysis server",
       [](C &c, const V &v) { c.analysisMemoryBytes = static_cast<std::uint64_t>(v.positive()); }},
      {"analysis_servers", "analyses at once",
       [](C &c, const V &v) { c.analysisServers = static_cast<unsigned>(v.positive()); }},
      {"insecure_no_isolation", "development only: score without isolation (true|false)",
       [](C &c, const V &v) { c.insecureNoIsolation = v.boolean(); }},
      {"nvcc", "the compiler of candidates", [](C &c, const V &v) { c.nvcc = v.text(); }},
      {"arch", "nvcc -arch and the occupancy target", [](C &c, const V &v) { c.arch = v.text(); }},
      {"gpus", "GPU indices, 0,1 ('' for none)",
       [](C &c, const V &v) {
         c.gpusGiven = true;
         c.gpus = parseGpus(v);
       }},
      {"cpu_workers", "the CPU pool's threads (0: cores)",
       [](C &c, const V &v) { c.cpuWorkers = static_cast<unsigned>(v.number()); }},
      {"judge_cpus", "cores set apart for each GPU's judge (0: off)",
       [](C &c, const V &v) {
         const double cpus = v.number();
         if (cpus < 0 || cpus > 1024 || cpus != static_cast<double>(static_cast<unsigned>(cpus)))
           v.fail("expected a whole number of CPUs from 0 to 1024");
         c.judgeCpus = static_cast<unsigned>(cpus);
       }},
      {"http_threads", "I/O threads", [](C &c, const V &v) { c.httpThreads = static_cast<unsigned>(v.positive()); }},
      {"max_body_bytes", "larger request bodies get 413",
       [](C &c, const V &v) { c.maxBodyBytes = static_cast<std::size_t>(v.positive()); }},
      {"queue_capacity", "evaluations accepted and not answered; past it 503",
       [](C &c, const V &v) { c.queueCapacity = static_cast<std::size_t>(v.positive()); }},
      {"request_deadline_seconds", "past it 504 (the evaluation goes on and is stored)",
       [](C &c, const V &v) { c.requestDeadlineSeconds = v.positive(); }},
      {"idle_timeout_seconds", "a silent connection is closed after it",
       [](C &c, const V &v) { c.idleTimeoutSeconds = v.positive(); }},
      {"judge_device", "cuda, or none: judges without a GPU (host-memory tasks only; device tasks get no_gpu)",
       [](C &c, const V &v) {
         c.judgeCuda = oneOf(v, {"cuda", "none"}) == "cuda";
       }},
      {"harness_wall_seconds", "per evaluation: a worker past it is killed",
       [](C &c, const V &v) { c.harnessWallSeconds = v.positive(); }},
      {"worker_batch", "evaluations of one task a judge takes in a row",
       [](C &c, const V &v) { c.workerBatch = static_cast<unsigned>(v.positive()); }},
      {"baseline_max_age_seconds", "a GPU baseline's timing is reused this long",
       [](C &c, const V &v) { c.baselineMaxAgeSeconds = v.positive(); }},
      {"pause_starting_workers", "spare workers still starting: stopped while calls are timed (else waited for)",
       [](C &c, const V &v) { c.pauseStartingWorkers = v.boolean(); }},
      {"judge_max_evaluations", "a judge is replaced after this many evaluations",
       [](C &c, const V &v) { c.judgeMaxEvaluations = static_cast<std::size_t>(v.positive()); }},
      {"seed", "0: a fresh secret seed per evaluation; else fixed (development)",
       [](C &c, const V &v) { c.seed = static_cast<std::uint64_t>(v.number()); }},
      {"runs", "the most timed calls", [](C &c, const V &v) { c.runs = static_cast<int>(v.positive()); }},
      {"warmup", "warm-up calls", [](C &c, const V &v) { c.warmup = static_cast<int>(v.number()); }},
      {"min_runs", "timed calls stop here at the earliest",
       [](C &c, const V &v) { c.minRuns = static_cast<int>(v.positive()); }},
      {"median_half_width", "... once the median's 95 % interval is within this fraction of it",
       [](C &c, const V &v) {
         c.medianHalfWidth = v.number();
         if (!(c.medianHalfWidth >= 0 && c.medianHalfWidth < 1))
           v.fail("expected a fraction of the median in [0, 1) (0: every call of runs)");
       }},
      {"log_level", "trace, debug, info, warn or error",
       [](C &c, const V &v) {
         c.logLevel = oneOf(v, {"trace", "debug", "info", "warn", "error"});
       }},
      {"precompiled_headers", "parse the CUDA headers once (true|false)",
       [](C &c, const V &v) { c.precompiledHeaders = v.boolean(); }},
      {"prepare_tasks_at_start", "with a GPU: prepare every task at start (true|false)",
       [](C &c, const V &v) { c.prepareTasksAtStart = v.boolean(); }},
      {"speedup_baseline", "the speedup's baseline: cpu or gpu",
       [](C &c, const V &v) {
         c.reward.baseline = oneOf(v, {"cpu", "gpu"}) == "cpu" ? SpeedupBaseline::Cpu : SpeedupBaseline::Gpu;
       }},
      {"alpha_comp", "reward: compiled", [](C &c, const V &v) { c.reward.alphaComp = v.number(); }},
      {"alpha_wrong", "reward: wrong answer", [](C &c, const V &v) { c.reward.alphaWrong = v.number(); }},
      {"alpha_speed", "reward: speed weight", [](C &c, const V &v) { c.reward.alphaSpeed = v.number(); }},
      {"alpha_cv", "reward: timing noise weight", [](C &c, const V &v) { c.reward.alphaCv = v.number(); }},
      {"s_min", "reward: speedup floor", [](C &c, const V &v) { c.reward.speedupMin = v.number(); }},
      {"s_max", "reward: speedup cap", [](C &c, const V &v) { c.reward.speedupMax = v.number(); }},
      {"lambda_str", "reward: structural weight",
       [](C &c, const V &v) {
         c.reward.lambdaStr = v.nonNegative(); // negative: min(R_str, 0) of a failure would become a bonus
       }},
      {"r_str_credit_when_failed",
       "reward: true adds R_str's positive part to answers that did not pass every test too (CudaPerf's formula)",
       [](C &c, const V &v) { c.reward.structureCreditWhenFailed = v.boolean(); }},
      {"r_str_reference", "R_str measured from: baseline (the task's baseline.cu) or none (absolute)",
       [](C &c, const V &v) {
         c.strRelativeToBaseline = oneOf(v, {"baseline", "none"}) == "baseline";
       }},
      {"r_str_unreadable", "R_str of a candidate the analysis cannot read (with a ranker)",
       [](C &c, const V &v) { c.strUnreadable = v.number(); }},
  };
  return table;
}

void apply(DaemonConfig &config, const std::string &key, const json::value &value, const std::string &where) {
  const auto &table = settings();
  const auto setting = std::find_if(table.begin(), table.end(), [&](const Setting &s) { return key == s.key; });
  if (setting == table.end())
    fail(where, "unknown setting '" + key + "'");
  setting->apply(config, SettingValue(value, where));
}

std::string flagOf(const std::string &key) {
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// The command line: --config FILE, then one flag per setting, in the order
// given (a later flag wins; --analysis-args adds one each time).
struct Flags {
  std::vector<std::string> configFiles;                   // each applied in turn, before any flag
  std::vector<std::pair<std::string, std::string>> given; // (key, value) in command-line order
};

void describeFlags(CLI::App &app, Flags &flags) {
  valueFlag(app, "--config", flags.configFiles, "JSON file of settings, applied before the flags (repeatable)");
  for (const Setting &setting : settings()) {
    const std::string key = setting.key;
    // --analysis-args, or --analysis_args as the key is written.
    const std::string names = key.find('_') == std::string::npos ? flagOf(key) : flagOf(key) + ",--" + key;
    app.add_option_function<std::vector<std::string>>(
           names,
           [&flags, key](const std::vector<std::string> &values) {
             for (const auto &value : values)
               flags.given.emplace_back(key, value);
           },
           setting.help)
        ->type_name("VALUE")
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->trigger_on_parse();
  }
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

std::string daemonUsage() {
  CLI::App app("cudaperfd: the reward daemon (every setting: docs/api.md)", "cudaperfd");
  Flags flags;
  describeFlags(app, flags);
  app.footer("       cudaperfd export --db FILE [--db FILE ...] --format jsonl");
  return app.help();
}

DaemonConfig configFromArguments(const std::vector<std::string> &arguments) {
  CLI::App app("cudaperfd", "cudaperfd");
  app.set_help_flag(); // --help is main's (daemonUsage), before this
  Flags flags;
  describeFlags(app, flags);
  parseCommandLine(app, arguments);
  DaemonConfig config;
  for (const auto &file : flags.configFiles)
    config = loadDaemonConfig(file, config);
  for (const auto &[key, value] : flags.given)
    apply(config, key, json::value(value), "flag " + flagOf(key));
  // Resolved once, against the directory the daemon starts in: the sandboxed
  // compiles and the harness run elsewhere and would miss a relative path.
  for (auto *path :
       {&config.tasksDir, &config.dbFile, &config.cacheDir, &config.rankerFile, &config.judge, &config.analysisServer})
    if (!path->empty())
      *path = std::filesystem::absolute(*path);
  return config;
}

} // namespace cudaperf
