// cudaperf-train sft-data: the SFT pairs of a set of tasks (SftData.h), one
// JSON line each, written whole (a .partial file renamed into place).
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/SftData.h"
#include "cudaperf/trainer/TaskSelection.h"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace cudaperf {

namespace fs = std::filesystem;

int sftDataCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"tasks-dir", "tasks", "out"});
  const std::string out = textFlag(flags, "out");
  if (out.empty())
    throw std::invalid_argument("--out FILE.jsonl is required");
  const std::vector<TaskSpec> tasks =
      trainer::loadTasks(textFlag(flags, "tasks-dir", "tasks"), commaList(textFlag(flags, "tasks")));
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
