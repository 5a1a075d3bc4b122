#include "cudaperf/contracts/ContentKey.h"

#include <boost/uuid/detail/sha1.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cudaperf {

std::string contentKey(const std::vector<std::string> &parts) {
  boost::uuids::detail::sha1 sha;
  for (const auto &part : parts) {
    sha.process_bytes(part.data(), part.size());
    sha.process_byte(0);
  }
  boost::uuids::detail::sha1::digest_type digest;
  sha.get_digest(digest);
  // The digest's element type differs between Boost versions; print each in full.
  std::string hex;
  char buffer[32];
  for (auto word : digest) {
    std::snprintf(buffer, sizeof buffer, "%0*llx", static_cast<int>(sizeof(word) * 2),
                  static_cast<unsigned long long>(word));
    hex += buffer;
  }
  return hex;
}

std::string fileContents(const std::filesystem::path &path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

} // namespace cudaperf
