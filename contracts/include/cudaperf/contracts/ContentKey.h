// Content keys: the daemon's artifact cache and store, and the trainer's data
// hash, name content the same way.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cudaperf {

// Hex SHA-1 of the parts, each followed by a NUL so ("ab","c") != ("a","bc").
std::string contentKey(const std::vector<std::string> &parts);

// A file's bytes (empty when it cannot be read): what a key of it hashes.
std::string fileContents(const std::filesystem::path &path);

} // namespace cudaperf
