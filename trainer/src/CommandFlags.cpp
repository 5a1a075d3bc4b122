#include "cudaperf/trainer/CommandFlags.h"

#include <algorithm>
#include <stdexcept>

namespace cudaperf {

Flags parseFlags(const std::vector<std::string> &args, const std::vector<std::string> &valued,
                 const std::vector<std::string> &switches) {
  Flags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &flag = args[i];
    const std::string name = flag.rfind("--", 0) == 0 ? flag.substr(2) : "";
    if (std::find(switches.begin(), switches.end(), name) != switches.end()) {
      flags[name] = "1";
      continue;
    }
    if (name.empty() || std::find(valued.begin(), valued.end(), name) == valued.end())
      throw std::invalid_argument("unknown argument '" + flag + "'");
    if (i + 1 >= args.size())
      throw std::invalid_argument(flag + " needs a value");
    flags[name] = args[++i];
  }
  return flags;
}

double numberFlag(const Flags &flags, const std::string &name, double fallback) {
  const auto found = flags.find(name);
  if (found == flags.end())
    return fallback;
  try {
    std::size_t used = 0;
    const double value = std::stod(found->second, &used);
    if (used == found->second.size())
      return value;
  } catch (const std::exception &) {
  }
  throw std::invalid_argument("--" + name + ": expected a number, got '" + found->second + "'");
}

std::string textFlag(const Flags &flags, const std::string &name, const std::string &fallback) {
  const auto found = flags.find(name);
  return found == flags.end() ? fallback : found->second;
}

bool switchFlag(const Flags &flags, const std::string &name) { return flags.count(name) != 0; }

} // namespace cudaperf
