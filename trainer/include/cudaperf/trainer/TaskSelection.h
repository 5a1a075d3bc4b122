// The tasks a trainer command works on: the named ones of a suite folder, or
// every task there (loadSuite), sorted by name either way so that an order
// (data order, report rows) never depends on the command line's.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cudaperf::trainer {

// Throws std::invalid_argument for a name with no task.json under `root`.
std::vector<TaskSpec> loadTasks(const std::filesystem::path &root, std::vector<std::string> names);

} // namespace cudaperf::trainer
