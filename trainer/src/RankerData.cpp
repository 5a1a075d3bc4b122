#include "cudaperf/trainer/RankerData.h"

#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/contracts/JsonFieldReader.h"
#include "cudaperf/contracts/ReportJson.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace json = boost::json;

namespace cudaperf {

namespace {

[[noreturn]] void fail(std::string_view source, std::size_t line, const std::string &what) {
  throw std::invalid_argument(std::string(source) + ":" + std::to_string(line) + ": " + what);
}

} // namespace

std::vector<std::size_t> RankerDataset::samplesOf(const std::string &task) const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (samples[i].task == task)
      indices.push_back(i);
  return indices;
}

RankerDataset parseRankerData(std::string_view text, std::string_view sourceName) {
  RankerDataset data;
  data.hash = contentKey({std::string(text)});
  std::vector<RankerSample> passing;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::size_t number = 0;
  // "data.jsonl:12: features.gmem missing"; a top-level key is quoted: "\"speedup\" must be ...".
  const JsonFieldReader lineFields([&](const std::string &field, const std::string &why) {
    fail(sourceName, number,
         (field.find_first_of(".[") == std::string::npos ? "\"" + field + "\"" : field) + " " + why);
  });
  while (std::getline(lines, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    boost::system::error_code error;
    const json::value parsed = json::parse(line, error);
    if (error || !parsed.is_object())
      fail(sourceName, number,
           line.find("NaN") != std::string::npos || line.find("Infinity") != std::string::npos
               ? "not valid JSON (NaN and Infinity are not JSON numbers; features must be finite)"
               : "not a JSON object");
    const json::object &object = parsed.get_object();
    const JsonFieldReader &fields = lineFields;
    const std::string task = fields.string(fields.required(object, "task", ""), "task");
    if (task.empty())
      fields.fail("task", "must not be empty");
    if (const json::value *status = fields.optional(object, "status");
        status && fields.string(*status, "status") != "ok") {
      ++data.excluded;
      continue;
    }
    const json::value &speedup = fields.required(object, "speedup", "");
    if (speedup.is_null()) {
      ++data.excluded;
      continue;
    }
    if (!(fields.finiteNumber(speedup, "speedup") > 0))
      fields.fail("speedup", "must be a positive finite number");
    const auto *features = object.if_contains("features");
    if (!features || !features->is_object())
      fields.fail("features", "missing or not an object (evaluated without the analysis library? "
                              "scripts/collect-ranker-data --features adds them)");
    RankerSample sample;
    sample.task = task;
    if (const auto *variant = object.if_contains("variant"); variant && variant->is_string())
      sample.variant = variant->get_string();
    sample.speedup = speedup.to_number<double>();
    for (std::size_t i = 0; i < kFeatureCount; ++i) {
      const std::string name(kFeatureNames[i]);
      sample.features[i] =
          fields.finiteNumber(fields.required(features->get_object(), name, "features"), "features." + name);
    }
    try {
      readUnknownFeatures(object.if_contains("features_unknown"), sample.features);
      readExtendedFeatures(object.if_contains("extended"), sample.features);
      sample.entryLaunches = standingLaunchShapes(object);
    } catch (const std::invalid_argument &error) {
      fail(sourceName, number, error.what());
    }
    passing.push_back(std::move(sample));
  }
  std::map<std::string, std::size_t> counts;
  for (const auto &sample : passing)
    ++counts[sample.task];
  for (const auto &[task, count] : counts)
    (count >= 2 ? data.tasks : data.droppedTasks).push_back(task);
  for (auto &sample : passing)
    if (counts[sample.task] >= 2)
      data.samples.push_back(std::move(sample));
  if (data.tasks.size() < 2) {
    std::string message = "need two or more tasks with two or more passing variants (validation holds whole tasks "
                          "out); found " +
                          std::to_string(data.tasks.size());
    if (!data.droppedTasks.empty())
      message += "; tasks with a single passing variant: " + data.droppedTasks.front() +
                 (data.droppedTasks.size() > 1 ? " and " + std::to_string(data.droppedTasks.size() - 1) + " more" : "");
    throw std::invalid_argument(std::string(sourceName) + ": " + message);
  }
  return data;
}

RankerDataset loadRankerData(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::invalid_argument("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parseRankerData(text.str(), file.string());
}

std::map<std::string, FeatureVector> taskBaselines(const RankerDataset &data) {
  std::map<std::string, FeatureVector> baselines;
  for (const auto &sample : data.samples) {
    const std::string &variant = sample.variant;
    const std::string_view name = "baseline.cu";
    if (variant == name || (variant.size() > name.size() && variant.ends_with("/baseline.cu")))
      baselines.emplace(sample.task, sample.features); // the first, should a task list two
  }
  return baselines;
}

void makeRelativeToTaskBaselines(RankerDataset &data) {
  const auto baselines = taskBaselines(data);
  std::string missing;
  for (const auto &task : data.tasks)
    if (!baselines.count(task))
      missing += (missing.empty() ? "" : ", ") + task;
  if (!missing.empty())
    throw std::invalid_argument("inputs relative to the task's baseline: no passing baseline.cu evaluation of " +
                                missing +
                                " (a line's \"variant\" names it; the store's export has none: use the JSONL of "
                                "scripts/collect-ranker-data)");
  for (auto &sample : data.samples)
    sample.features = featuresRelativeToBaseline(sample.features, baselines.at(sample.task));
}

std::vector<RankPair> rankPairs(const RankerDataset &data, const std::vector<std::string> &tasks, PairMode mode,
                                double tieRatio) {
  std::vector<RankPair> pairs;
  for (const auto &task : tasks) {
    std::vector<std::size_t> indices = data.samplesOf(task);
    std::stable_sort(indices.begin(), indices.end(),
                     [&](std::size_t a, std::size_t b) { return data.samples[a].speedup > data.samples[b].speedup; });
    const std::size_t n = indices.size();
    // Quartile: the fastest quarter against the slowest quarter (at least one each).
    const std::size_t top = mode == PairMode::All ? n : std::max<std::size_t>(1, n / 4);
    for (std::size_t i = 0; i < top; ++i)
      for (std::size_t j = mode == PairMode::All ? i + 1 : n - top; j < n; ++j) {
        if (j <= i)
          continue;
        const auto &faster = data.samples[indices[i]], &slower = data.samples[indices[j]];
        if (faster.speedup > tieRatio * slower.speedup)
          pairs.push_back({indices[i], indices[j]});
      }
  }
  return pairs;
}

} // namespace cudaperf
