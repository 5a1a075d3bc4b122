// Settings files of the trainer's commands: a table of (JSON key, member)
// read from a JSON object (an unknown key, or a value of the wrong type, is
// an error naming the file and the key) and written back, one definition per
// setting. No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cudaperf::trainer {

using ConfigField =
    std::variant<std::string *, int *, double *, bool *, std::int64_t *, std::uint64_t *, std::vector<std::string> *>;
using ConfigTable = std::vector<std::pair<const char *, ConfigField>>;

// Throws std::invalid_argument("ORIGIN: 'key' ...").
void readConfigFields(const std::string &jsonText, const std::string &origin, const ConfigTable &table);
std::string writeConfigFields(const ConfigTable &table);

} // namespace cudaperf::trainer
