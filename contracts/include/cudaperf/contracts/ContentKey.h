// Content keys: the daemon's artifact cache and store, and the trainer's data
// hash, name content the same way.
#pragma once

#include <string>
#include <vector>

namespace cudaperf {

// Hex SHA-1 of the parts, each followed by a NUL so ("ab","c") != ("a","bc").
std::string contentKey(const std::vector<std::string> &parts);

} // namespace cudaperf
