// Flags of cudaperf-train's subcommands: "--name value" pairs and bare
// switches ("--ids"); anything else is an std::invalid_argument naming it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cudaperf {

using Flags = std::map<std::string, std::string>;

// valued: flags that take a value; switches: flags that take none (stored as "1").
Flags parseFlags(const std::vector<std::string> &args, const std::vector<std::string> &valued,
                 const std::vector<std::string> &switches = {});
double numberFlag(const Flags &flags, const std::string &name, double fallback);
std::string textFlag(const Flags &flags, const std::string &name, const std::string &fallback = "");
bool switchFlag(const Flags &flags, const std::string &name);
// "a,b,,c" -> {a, b, c}: a flag's comma-separated list, empty items dropped.
std::vector<std::string> commaList(const std::string &text);

} // namespace cudaperf
