// A whole file as text, or an error naming it: what every reader of the
// trainer's JSON and source files starts with.
#pragma once

#include <string>

namespace cudaperf::trainer {

// Throws std::runtime_error("PATH: cannot read the file").
std::string readTextFile(const std::string &path);

} // namespace cudaperf::trainer
