// cudaperf-train sft-data: the SFT pairs of a set of tasks (SftData.h), one
// JSON line each, written whole (a .partial file renamed into place).
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/SftData.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace fs = std::filesystem;

int sftDataCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"tasks-dir", "tasks", "out"});
  const std::string out = textFlag(flags, "out");
  if (out.empty())
    throw std::invalid_argument("--out FILE.jsonl is required");
  const fs::path tasksDir = textFlag(flags, "tasks-dir", "tasks");
  std::vector<std::string> names;
  std::stringstream wanted(textFlag(flags, "tasks"));
  for (std::string name; std::getline(wanted, name, ',');)
    if (!name.empty())
      names.push_back(name);
  if (names.empty()) // every task of the folder
    for (const auto &entry : fs::directory_iterator(tasksDir))
      if (fs::exists(entry.path() / "task.json"))
        names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<TaskSpec> tasks;
  for (const auto &name : names) {
    if (!fs::exists(tasksDir / name / "task.json"))
      throw std::invalid_argument("no task '" + name + "' in " + tasksDir.string());
    tasks.push_back(loadTask(tasksDir / name));
  }
  const auto lines = trainer::sftLinesOf(tasks);
  const std::string partial = out + ".partial";
  {
    std::ofstream file(partial, std::ios::trunc);
    for (const auto &line : lines)
      file << boost::json::serialize(line) << "\n";
    if (!file.flush())
      throw std::runtime_error(partial + ": cannot write");
  }
  fs::rename(partial, out);
  std::cout << lines.size() << " pairs of " << tasks.size() << " tasks -> " << out << "\n";
  return 0;
}

} // namespace cudaperf
