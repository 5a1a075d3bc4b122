// A whole file as text, or an error naming it: what every reader of a JSON,
// source or task file starts with (the trainer, the client, the tools).
#pragma once

#include <string>

namespace cudaperf {

// Throws std::runtime_error("PATH: cannot read the file").
std::string readTextFile(const std::string &path);

} // namespace cudaperf
