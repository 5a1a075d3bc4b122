// cudaperf-train rank: held-out validation by task, then the exported ranker.
// cudaperf-train score: the trainer's (LibTorch) score of feature vectors
// under an exported ranker, to check the daemon's plain C++ against.
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/trainer/CommandFlags.h"

#include "cudaperf/contracts/ReportJson.h"
#include "cudaperf/trainer/RankValidation.h"

#include <boost/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace json = boost::json;

namespace cudaperf {

namespace {

std::vector<int> hiddenWidths(const std::string &text) {
  std::vector<int> widths;
  if (text.empty() || text == "none")
    return widths; // a linear scorer
  std::istringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    try {
      const int width = std::stoi(part);
      if (width > 0 && std::to_string(width) == part) {
        widths.push_back(width);
        continue;
      }
    } catch (const std::exception &) {
    }
    throw std::invalid_argument("--hidden: expected widths like 32,32 (or none), got '" + text + "'");
  }
  return widths;
}

// --monotone bank:-1,vec:+1 (or none): features the score must fall (-1) or
// rise (+1) with, all else equal.
std::vector<MonotoneFeature> monotoneFeatures(const std::string &text) {
  std::vector<MonotoneFeature> terms;
  if (text.empty() || text == "none")
    return terms;
  std::istringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto colon = part.find(':');
    const std::string name = part.substr(0, colon), sign = colon == std::string::npos ? "" : part.substr(colon + 1);
    const auto feature = featureIndex(name);
    if (!feature || (sign != "-1" && sign != "+1" && sign != "1"))
      throw std::invalid_argument("--monotone: expected feature:-1 or feature:+1 items like bank:-1 (or none), got '" +
                                  part + "'");
    terms.push_back(MonotoneFeature{*feature, sign == "-1" ? -1 : 1});
  }
  return terms;
}

std::string formatMeanStd(const MeanStd &value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%6.3f ± %5.3f", value.mean, value.std);
  return buffer;
}

void writeJson(const std::filesystem::path &file, const json::value &value) {
  std::ofstream out(file);
  out << json::serialize(value) << "\n";
  if (!out)
    throw std::runtime_error("cannot write " + file.string());
}

} // namespace

int rankCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args,
                                 {"data", "db", "out", "metrics", "pairs", "hidden", "activation", "epochs", "patience",
                                  "lr", "weight-decay", "seed", "folds", "repeats", "tie-ratio", "transform",
                                  "features", "monotone", "ensemble"},
                                 {"relative-to-baseline"});
  if (!flags.count("data") == !flags.count("db"))
    throw std::invalid_argument("give exactly one of --data FILE.jsonl and --db FILE.sqlite");
  if (!flags.count("out"))
    throw std::invalid_argument("--out ranker.json is required");
  RankerTrainingOptions options;
  if (flags.count("pairs")) {
    const std::string &pairs = flags.at("pairs");
    if (pairs != "quartile" && pairs != "all")
      throw std::invalid_argument("--pairs: expected quartile or all, got '" + pairs + "'");
    options.pairs = pairs == "all" ? PairMode::All : PairMode::Quartile;
  }
  if (flags.count("hidden"))
    options.hidden = hiddenWidths(flags.at("hidden"));
  if (flags.count("activation")) {
    options.activation = flags.at("activation");
    if (options.activation != "relu" && options.activation != "tanh")
      throw std::invalid_argument("--activation: expected relu or tanh");
  }
  if (flags.count("transform")) {
    if (flags.at("transform") != "log" && flags.at("transform") != "none")
      throw std::invalid_argument("--transform: expected log or none, got '" + flags.at("transform") + "'");
    options.logScale = flags.at("transform") == "log";
  }
  if (flags.count("features")) {
    const std::string &features = flags.at("features");
    if (features != "extended" && features != "cudaperf" && features != "extended+own")
      throw std::invalid_argument("--features: expected extended, extended+own or cudaperf, got '" + features + "'");
    options.extendedFeatures = features != "cudaperf";
    options.ownFeatures = features == "extended+own";
  }
  if (flags.count("monotone"))
    options.monotone = monotoneFeatures(flags.at("monotone"));
  options.epochs = static_cast<int>(numberFlag(flags, "epochs", options.epochs));
  options.patience = static_cast<int>(numberFlag(flags, "patience", options.patience));
  options.learningRate = numberFlag(flags, "lr", options.learningRate);
  options.weightDecay = numberFlag(flags, "weight-decay", options.weightDecay);
  options.seed = static_cast<std::uint64_t>(numberFlag(flags, "seed", 0));
  options.tieRatio = numberFlag(flags, "tie-ratio", options.tieRatio);
  const double ensemble = numberFlag(flags, "ensemble", 1);
  if (ensemble != std::floor(ensemble) || ensemble < 1 || ensemble > 100)
    throw std::invalid_argument("--ensemble: expected a whole number of networks, 1 to 100");
  options.ensemble = static_cast<int>(ensemble);
  const int folds = static_cast<int>(numberFlag(flags, "folds", 5));
  const int repeats = static_cast<int>(numberFlag(flags, "repeats", 5));
  if (options.epochs < 1 || options.tieRatio < 1)
    throw std::invalid_argument("--epochs must be >= 1 and --tie-ratio >= 1");

  const std::string source = flags.count("data") ? flags.at("data") : flags.at("db");
  RankerDataset data = flags.count("data") ? loadRankerData(source) : loadRankerDataFromStore(source);
  // Scored against its task: every sample's 11 relative to its task's baseline.cu row, in training,
  // validation and the export alike.
  const bool relative = flags.count("relative-to-baseline") > 0;
  if (options.ownFeatures && !relative)
    throw std::invalid_argument("--features extended+own: the own 11 stand beside relative ones "
                                "(--relative-to-baseline)");
  if (relative)
    makeRelativeToTaskBaselines(data);
  std::string hidden;
  for (int width : options.hidden)
    hidden += (hidden.empty() ? "" : ",") + std::to_string(width);
  std::cout << "cudaperf-train rank: " << data.samples.size() << " passing evaluations of " << data.tasks.size()
            << " tasks from " << source << " (" << data.excluded << " not passing left out";
  if (!data.droppedTasks.empty())
    std::cout << "; " << data.droppedTasks.size() << " task(s) with one passing variant left out, e.g. "
              << data.droppedTasks.front();
  std::cout << ")\npairs: " << (options.pairs == PairMode::All ? "all" : "quartile") << ", tie ratio "
            << options.tieRatio << "; MLP " << (hidden.empty() ? "none (linear)" : hidden) << " " << options.activation
            << "; inputs: "
            << (options.ownFeatures        ? "the 11, the extended features and the own 11"
                : options.extendedFeatures ? "the 11 and the extended features"
                                           : "the 11")
            << ", " << (options.logScale ? "signed log1p (but coal, occ, div)" : "as measured") << ", z-scored"
            << (relative ? "; the 11 relative to the task's baseline.cu" : "");
  for (std::size_t t = 0; t < options.monotone.size(); ++t)
    std::cout << (t ? ", " : "; monotone: ") << featureName(options.monotone[t].feature)
              << (options.monotone[t].sign < 0 ? " (down)" : " (up)");
  std::cout << "; seed " << options.seed;
  if (options.ensemble > 1)
    std::cout << "; an ensemble of " << options.ensemble << " networks (seeds seed + " << kEnsembleSeedStride
              << " k), their mean";
  std::cout << "\n";

  const ValidationReport report = validateByTask(data, options, folds, repeats);
  std::cout << "held out by task: " << report.folds << " folds x " << report.repeats << " repeats ("
            << report.scorers.front().tasks.size() << " held-out task evaluations); mean ± std over them\n\n";
  std::printf("%-14s %-16s %-16s %-16s\n", "scorer", "spearman", "kendall", "pairwise acc");
  for (const auto &validation : report.scorers)
    std::printf("%-14s %-16s %-16s %-16s\n", validation.name.c_str(), formatMeanStd(validation.spearman).c_str(),
                formatMeanStd(validation.kendall).c_str(), formatMeanStd(validation.pairwiseAccuracy).c_str());
  std::printf("\neach feature alone (mean over tasks of Spearman with speedup; the hand mapping's sign):\n");
  json::array signalJson;
  for (const auto &signal : featureSignals(data)) {
    std::printf("  %-8s %+6.3f  varies in %2zu of %zu tasks  hand sign %+d%s\n", signal.feature.c_str(),
                signal.spearmanMean, signal.tasksVarying, data.tasks.size(), signal.handMappingSign,
                signal.handMappingSign * signal.spearmanMean < -0.1 ? "  <- opposite to the measured direction" : "");
    signalJson.push_back({{"feature", signal.feature},
                          {"spearman_mean", signal.spearmanMean},
                          {"tasks_varying", signal.tasksVarying},
                          {"hand_mapping_sign", signal.handMappingSign}});
  }
  std::fflush(stdout);

  // The exported model: the same configuration trained on every task.
  TrainingSummary summary;
  RankerModel model = trainRanker(data, data.tasks, options, &summary);
  model.relativeToBaseline = relative;
  json::array validationTasks;
  for (const auto &task : summary.validationTasks)
    validationTasks.push_back(json::value(task));
  json::object heldout = toJson(scorer(report, "mlp"), false).as_object();
  heldout["folds"] = report.folds;
  heldout["repeats"] = report.repeats;
  json::object baselines;
  for (const auto &name : {"linear", "hand_mapping", "random"})
    baselines[name] = toJson(scorer(report, name), false);
  model.metrics = json::object{{"heldout", heldout},
                               {"baselines", baselines},
                               {"training",
                                {{"tasks", data.tasks.size()},
                                 {"evaluations", data.samples.size()},
                                 {"excluded_not_passing", data.excluded},
                                 {"pairs", options.pairs == PairMode::All ? "all" : "quartile"},
                                 {"train_pairs", summary.trainPairs},
                                 {"validation_pairs", summary.validationPairs},
                                 {"validation_tasks", validationTasks},
                                 {"epochs_run", summary.epochsRun},
                                 {"best_epoch", summary.bestEpoch},
                                 {"train_loss", summary.trainLoss},
                                 {"validation_loss", summary.validationLoss},
                                 {"hidden", hidden.empty() ? "none" : hidden},
                                 {"activation", options.activation},
                                 {"transform", options.logScale ? "log" : "none"},
                                 {"seed", options.seed},
                                 {"ensemble", options.ensemble},
                                 {"inputs", relative ? "relative_to_baseline" : "absolute"},
                                 {"tie_ratio", options.tieRatio}}}};
  writeJson(flags.at("out"), rankerToJson(model));

  std::filesystem::path metricsFile = flags.count("metrics")
                                          ? std::filesystem::path(flags.at("metrics"))
                                          : std::filesystem::path(flags.at("out")).replace_extension(".metrics.json");
  json::object metrics{{"data", source}, {"data_hash", data.hash}, {"training", model.metrics.at("training")}};
  json::object scorers;
  for (const auto &validation : report.scorers)
    scorers[validation.name] = toJson(validation, true);
  metrics["scorers"] = std::move(scorers);
  metrics["feature_signal"] = std::move(signalJson);
  writeJson(metricsFile, metrics);
  std::cout << "\nexported model: trained on " << data.tasks.size() - summary.validationTasks.size() << " tasks ("
            << summary.validationTasks.size() << " held back for early stopping), " << summary.trainPairs
            << " pairs, best epoch " << summary.bestEpoch << " of " << summary.epochsRun << "\nwrote "
            << flags.at("out") << " and " << metricsFile.string() << "\n";
  // Last line: one JSON object for scripts.
  std::cout << json::serialize(json::object{{"heldout", heldout},
                                            {"baselines", baselines},
                                            {"out", flags.at("out")},
                                            {"metrics", metricsFile.string()}})
            << std::endl;
  return 0;
}

namespace {

// A feature vector as a report or an export line has it: the 11 (at the top or under "features"), the
// extended features and the unknown list. `where` names the object in errors.
FeatureVector lineFeatures(const json::object &line, const std::string &where) {
  const json::value *eleven = line.if_contains("features");
  FeatureVector features;
  try {
    features = featuresFromJson(eleven && eleven->is_object() ? *eleven : json::value(line));
  } catch (const std::invalid_argument &error) {
    throw std::invalid_argument(where + error.what());
  }
  readExtendedFeatures(line.if_contains("extended"), features);
  readUnknownFeatures(line.if_contains("features_unknown"), features);
  return features;
}

} // namespace

int scoreCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"ranker", "baselines"});
  if (!flags.count("ranker"))
    throw std::invalid_argument("--ranker FILE is required");
  const RankerModel model = loadRanker(flags.at("ranker"));
  // A ranker that scores against the task: a line's own "baseline" (the reference version's vector, for
  // kernels of no bundled task), else its task's baseline.cu row of --baselines.
  std::map<std::string, FeatureVector> baselines;
  if (model.relativeToBaseline && flags.count("baselines"))
    baselines = taskBaselines(loadRankerData(flags.at("baselines")));
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    const json::value parsed = json::parse(line);
    const FeatureVector features = lineFeatures(parsed.as_object(), "");
    std::optional<FeatureVector> ownBaseline;
    const FeatureVector *baseline = nullptr;
    if (model.relativeToBaseline) {
      const auto *given = parsed.as_object().if_contains("baseline");
      const auto *task = parsed.as_object().if_contains("task");
      const auto found = task && task->is_string() ? baselines.find(std::string(task->get_string())) : baselines.end();
      if (given && given->is_object())
        baseline = &ownBaseline.emplace(lineFeatures(given->as_object(), "baseline."));
      else if (found != baselines.end())
        baseline = &found->second;
      else
        throw std::invalid_argument("this ranker scores a kernel against its task's baseline: give the line a "
                                    "\"baseline\" (the reference version's features, as a report has them) or a "
                                    "\"task\" with a baseline.cu row in --baselines DATA.jsonl");
    }
    // A doubted entry walk's sized launches: the lowest score, as R_str takes it (rankerScoreAcrossLaunches).
    const double score =
        lowestScoreAcrossLaunches(features, standingLaunchShapes(parsed.as_object()), [&](const FeatureVector &vector) {
          return torchRankerScore(model, rankerFeatures(model, vector, baseline));
        });
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", score);
    std::cout << buffer << "\n";
  }
  return 0;
}

} // namespace cudaperf
