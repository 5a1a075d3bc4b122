// Content keys: the daemon's artifact cache and store, and the trainer's data
// hash, name content the same way.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cudaperf {

// Hex SHA-256 (OpenSSL) of the parts, each as its length (8 bytes, little
// endian) then its bytes, so that ("ab","c") != ("a","bc") and a part holding
// NUL bytes cannot pass for two: 64 lowercase hex digits. In Python:
// sha256(b"".join(len(p).to_bytes(8, "little") + p for p in parts)).
// (Stores written before SHA-256 hold SHA-1 source hashes of another layout:
// EvaluationStore rewrites them on open.)
std::string contentKey(const std::vector<std::string> &parts);

// A file's bytes (empty when it cannot be read): what a key of it hashes.
std::string fileContents(const std::filesystem::path &path);

} // namespace cudaperf
