#include "cudaperf/trainer/TaskSelection.h"

#include <algorithm>
#include <stdexcept>

namespace cudaperf::trainer {

std::vector<TaskSpec> loadTasks(const std::filesystem::path &root, std::vector<std::string> names) {
  if (names.empty())
    return loadSuite(root);
  std::sort(names.begin(), names.end());
  std::vector<TaskSpec> tasks;
  for (const auto &name : names) {
    if (!std::filesystem::exists(root / name / "task.json"))
      throw std::invalid_argument("no task '" + name + "' in " + root.string());
    tasks.push_back(loadTask(root / name));
  }
  return tasks;
}

} // namespace cudaperf::trainer
