#include "cudaperf/contracts/TextFile.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

std::string readTextFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace cudaperf
