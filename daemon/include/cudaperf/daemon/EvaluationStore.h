// The evaluation log: every answered evaluation in SQLite (WAL mode), written
// before the answer leaves the daemon, so a kill -9 loses nothing that was
// answered. It is also the cache: identical (task, source, config) requests
// are answered from it, and it is the ranker's training data (export).
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>

struct sqlite3;

namespace cudaperf {

struct StoredEvaluation {
  std::string key; // hash of (task, source, configuration)
  std::string task;
  std::string source;
  std::string sourceHash;
  std::string status;
  std::string gpu;            // device name, or "" when it did not run on a GPU
  std::string toolVersions;   // nvcc, harness, analysis
  boost::json::object result; // the whole answer (compile, correctness, timing, features, reward, ...)
};

class EvaluationStore {
public:
  // Opens (creating if needed) the database; throws std::runtime_error naming the file and SQLite's message.
  explicit EvaluationStore(const std::filesystem::path &file);
  ~EvaluationStore();
  EvaluationStore(const EvaluationStore &) = delete;
  EvaluationStore &operator=(const EvaluationStore &) = delete;

  // The stored answer of an identical request, with its id.
  std::optional<std::pair<std::int64_t, boost::json::object>> find(const std::string &key);
  // Stores and commits; returns the new id (or the existing one when the key is already there).
  std::int64_t insert(const StoredEvaluation &evaluation);
  std::int64_t count();
  // One JSON object per line: id, key, time, task, status, speedup, features
  // (the 11 keys), reward; "store" too when a name is given. Merging several
  // stores: pass one `seen` set to each, and an evaluation (by request key)
  // already written from an earlier store is skipped. Returns lines written.
  std::int64_t exportJsonl(std::ostream &out, const std::string &storeName = "", std::set<std::string> *seen = nullptr);

private:
  sqlite3 *db_ = nullptr;
  std::mutex mutex_;
  std::filesystem::path file_;
};

} // namespace cudaperf
