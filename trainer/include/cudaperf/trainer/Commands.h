// The subcommands of cudaperf-train; each throws std::invalid_argument for a
// bad argument or input, with a message naming it.
#pragma once

#include <string>
#include <vector>

namespace cudaperf {

int rankCommand(const std::vector<std::string> &args);
int scoreCommand(const std::vector<std::string> &args);
int generateCommand(const std::vector<std::string> &args);
int tokenizeCommand(const std::vector<std::string> &args);
int logitsCommand(const std::vector<std::string> &args);
int sampleCheckCommand(const std::vector<std::string> &args);
int grpoCommand(const std::vector<std::string> &args);
int initCommand(const std::vector<std::string> &args);
int evalCommand(const std::vector<std::string> &args);
int sftCommand(const std::vector<std::string> &args);
int sftDataCommand(const std::vector<std::string> &args);
int convertCommand(const std::vector<std::string> &args);

} // namespace cudaperf
