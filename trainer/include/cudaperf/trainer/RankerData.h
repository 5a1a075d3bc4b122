// The ranker's training data: evaluations as the daemon exports them (one
// JSON object per line: task, status, speedup, features), grouped by task.
// Only evaluations that passed carry a speed; the others are left out and
// counted (a failed candidate has no place on a speed scale, and the
// verifiable reward already punishes it).
#pragma once

#include "cudaperf/contracts/FeatureVector.h"
#include "cudaperf/contracts/Ranker.h"

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf {

struct RankerSample {
  std::string task;
  std::string variant; // label from the data, may be empty
  FeatureVector features;
  std::vector<LaunchShape> entryLaunches; // standingLaunchShapes of the line
  double speedup = 0;                     // measured, > 0
};

struct RankerDataset {
  std::vector<RankerSample> samples;     // passing evaluations of the kept tasks
  std::vector<std::string> tasks;        // sorted; each has two or more samples
  std::size_t excluded = 0;              // lines that did not pass (status other than ok, or no speedup)
  std::vector<std::string> droppedTasks; // one passing variant only: no pair to learn from
  std::string hash;                      // contentKey of the input text

  std::vector<std::size_t> samplesOf(const std::string &task) const;
};

// Throws std::invalid_argument "SOURCE:LINE: what" for a line that is not a
// JSON object, a missing or mistyped key, a feature that is not a finite
// number, a non-positive speedup; and when fewer than two tasks have two
// passing variants (validation holds whole tasks out).
RankerDataset parseRankerData(std::string_view text, std::string_view sourceName);
RankerDataset loadRankerData(const std::filesystem::path &file);
// The daemon's store, through its JSONL export.
RankerDataset loadRankerDataFromStore(const std::filesystem::path &database);

// Each task's baseline.cu evaluation (a sample whose variant is baseline.cu or
// ends in /baseline.cu), by task: the reference of a ranker that scores a
// candidate against its task (RankerModel::relativeToBaseline).
std::map<std::string, FeatureVector> taskBaselines(const RankerDataset &data);

// Every sample's 11 made relative to its task baseline's
// (featuresRelativeToBaseline), as such a ranker reads them. Throws
// std::invalid_argument naming the tasks that have no baseline evaluation.
void makeRelativeToTaskBaselines(RankerDataset &data);

// Which pairs of one task's samples train the ranker.
enum class PairMode {
  Quartile, // CudaPerf: every top-quartile sample against every bottom-quartile one
  All,      // every pair whose speeds differ by more than the tie ratio
};

struct RankPair {
  std::size_t faster; // index into samples
  std::size_t slower;
};

// Speeds closer than this ratio are a tie (timing noise), never a pair.
inline constexpr double kDefaultTieRatio = 1.05;

std::vector<RankPair> rankPairs(const RankerDataset &data, const std::vector<std::string> &tasks, PairMode mode,
                                double tieRatio = kDefaultTieRatio);

} // namespace cudaperf
