#include "cudaperf/trainer/CommandFlags.h"

#include "cudaperf/contracts/CommandLine.h"

#include <sstream>
#include <stdexcept>

namespace cudaperf {

Flags parseFlags(const std::vector<std::string> &args, const std::vector<std::string> &valued,
                 const std::vector<std::string> &switches) {
  Flags flags;
  CLI::App app;
  app.set_help_flag(); // the subcommand's usage is cudaperf-train's, printed by main
  for (const std::string &name : valued)
    app.add_option_function<std::string>("--" + name, [&flags, name](const std::string &value) { flags[name] = value; })
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  for (const std::string &name : switches)
    app.add_flag_callback("--" + name, [&flags, name] { flags[name] = "1"; });
  parseCommandLine(app, args);
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

std::vector<std::string> commaList(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');)
    if (!part.empty())
      out.push_back(part);
  return out;
}

} // namespace cudaperf
