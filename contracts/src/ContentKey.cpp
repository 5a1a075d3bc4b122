#include "cudaperf/contracts/ContentKey.h"

#include <openssl/evp.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

std::string contentKey(const std::vector<std::string> &parts) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  bool ok = context && EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) == 1;
  for (const auto &part : parts) {
    // Each part's length first: no two lists of parts give the same bytes,
    // whatever bytes (NUL too) a part holds.
    unsigned char length[8];
    for (int i = 0; i < 8; ++i)
      length[i] = static_cast<unsigned char>(static_cast<std::uint64_t>(part.size()) >> (8 * i));
    ok = ok && EVP_DigestUpdate(context.get(), length, sizeof length) == 1 &&
         EVP_DigestUpdate(context.get(), part.data(), part.size()) == 1;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  ok = ok && EVP_DigestFinal_ex(context.get(), digest, &length) == 1;
  if (!ok)
    throw std::runtime_error("contentKey: OpenSSL's SHA-256 failed");
  static const char *digits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += digits[digest[i] >> 4];
    hex += digits[digest[i] & 15];
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
