// The command lines of our programs, through CLI11: each program describes
// its flags on a CLI::App and parses here. A problem (an unknown argument, a
// flag without its value, a value CLI11 cannot convert) becomes an
// std::invalid_argument naming the argument, which the program prints above
// its usage (exit status 2). Header-only, as CLI11 is: only the programs'
// main files include it.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf {

// false: --help was asked for (print app.help(), exit 0).
inline bool parseCommandLine(CLI::App &app, const std::vector<std::string> &args) {
  app.allow_extras(); // reported below, in command-line order
  for (CLI::App *command : app.get_subcommands({}))
    command->allow_extras();
  std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes the last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp &) {
    return false;
  } catch (const CLI::ParseError &error) {
    throw std::invalid_argument(error.what());
  }
  const std::vector<std::string> extra = app.remaining(true);
  if (!extra.empty()) {
    std::string list;
    for (const auto &arg : extra)
      list += (list.empty() ? "'" : " '") + arg + "'";
    throw std::invalid_argument("unknown argument" + std::string(extra.size() > 1 ? "s " : " ") + list);
  }
  return true;
}

inline bool parseCommandLine(CLI::App &app, int argc, char **argv) {
  return parseCommandLine(app, std::vector<std::string>(argv + 1, argv + argc));
}

// parseCommandLine for a program's main: where the program stops here, the
// exit status (0 after --help's usage on stdout, 2 after "PROGRAM: problem"
// and the usage on stderr); nullopt to go on.
inline std::optional<int> parseOrExit(CLI::App &app, const std::vector<std::string> &args, const std::string &program) {
  try {
    if (parseCommandLine(app, args))
      return std::nullopt;
    std::cout << app.help();
    return 0;
  } catch (const std::invalid_argument &error) {
    std::cerr << program << ": " << error.what() << "\n" << app.help();
    return 2;
  }
}

// A flag that takes one value each time it is given: for a plain target the
// last one given wins; a list target (std::vector) keeps them all.
template <class T> CLI::Option *valueFlag(CLI::App &app, const std::string &name, T &target, const std::string &help) {
  CLI::Option *option = app.add_option(name, target, help)->allow_extra_args(false);
  if constexpr (!CLI::detail::is_mutable_container<T>::value)
    option->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  return option;
}

} // namespace cudaperf
