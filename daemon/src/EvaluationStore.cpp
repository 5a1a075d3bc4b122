#include "cudaperf/daemon/EvaluationStore.h"

#include "cudaperf/contracts/ContentKey.h"
#include "cudaperf/contracts/Utf8Text.h"

#include <boost/json.hpp>
#include <sqlite3.h>

#include <chrono>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cudaperf {

namespace json = boost::json;

namespace {

constexpr const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS evaluations (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT    NOT NULL,
  request_key   TEXT    NOT NULL UNIQUE,
  task          TEXT    NOT NULL,
  source        TEXT    NOT NULL,
  source_hash   TEXT    NOT NULL,
  status        TEXT    NOT NULL,
  speedup       REAL,
  r_total       REAL,
  gpu           TEXT    NOT NULL,
  tool_versions TEXT    NOT NULL,
  result_json   TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS evaluations_task ON evaluations(task);
)sql";

// PRAGMA user_version of a store whose source_hash column is contentKey's
// SHA-256 of the source (a marker for other tools: the rewrite itself goes
// by the hashes' length, so rows an older build adds later are caught too).
constexpr std::int64_t kSourceHashSha256 = 1;

// A prepared statement, finalised on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, const char *sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement &) = delete;
  void bind(int index, const std::string &text) {
    sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void bind(int index, std::optional<double> value) {
    if (value)
      sqlite3_bind_double(statement_, index, *value);
    else
      sqlite3_bind_null(statement_, index);
  }
  int step() {
    const int status = sqlite3_step(statement_);
    if (status != SQLITE_ROW && status != SQLITE_DONE)
      throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db_));
    return status;
  }
  void bind(int index, std::int64_t value) { sqlite3_bind_int64(statement_, index, value); }
  std::string text(int column) const {
    const auto *value = sqlite3_column_text(statement_, column);
    return value ? std::string(reinterpret_cast<const char *>(value),
                               static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)))
                 : "";
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }

private:
  sqlite3 *db_;
  sqlite3_stmt *statement_ = nullptr;
};

void execute(sqlite3 *db, const char *sql, const std::filesystem::path &file) {
  char *error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error("database " + file.string() + ": " + message);
  }
}

std::optional<double> number(const json::object &object, std::initializer_list<const char *> path) {
  const json::value *at = nullptr;
  const json::object *current = &object;
  for (const char *key : path) {
    at = current ? current->if_contains(key) : nullptr;
    if (!at)
      return std::nullopt;
    current = at->if_object();
  }
  return at && at->is_number() ? std::optional<double>(at->to_number<double>()) : std::nullopt;
}

std::string now() {
  const auto time = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&time));
  return text;
}

// Rewrites the source hashes that are not contentKey's SHA-256 (a store
// written before, or rows a build of before added since: a fleet mid-upgrade)
// from the sources the rows hold, in one transaction (a second daemon
// opening the file waits, then finds nothing to do). Every row stays;
// request keys are left as they are: they name the build too, so a new
// build never matched them anyway.
void migrateSourceHashes(sqlite3 *db, const std::filesystem::path &file) {
  execute(db, "BEGIN IMMEDIATE;", file);
  try {
    std::vector<std::pair<std::int64_t, std::string>> hashes;
    Statement rows(db, "SELECT id, source FROM evaluations WHERE length(source_hash) != 64");
    while (rows.step() == SQLITE_ROW)
      hashes.emplace_back(rows.integer(0), contentKey({rows.text(1)}));
    for (const auto &[id, hash] : hashes) {
      Statement update(db, "UPDATE evaluations SET source_hash = ? WHERE id = ?");
      update.bind(1, hash);
      update.bind(2, id);
      update.step();
    }
    execute(db, ("PRAGMA user_version = " + std::to_string(kSourceHashSha256) + ";").c_str(), file);
    execute(db, "COMMIT;", file);
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
}

} // namespace

EvaluationStore::EvaluationStore(const std::filesystem::path &file) : file_(file) {
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path());
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("database " + file.string() + ": " + message);
  }
  // Sources and results are not for the sandboxed candidates (another user);
  // SQLite gives the -wal and -shm files the database's permissions.
  std::filesystem::permissions(file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  sqlite3_busy_timeout(db_, 5000);
  // WAL with synchronous=NORMAL: a committed transaction survives the
  // process being killed (the WAL is in the OS's hands once written).
  execute(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", file);
  execute(db_, kSchema, file);
  migrateSourceHashes(db_, file);
  execute(db_, "PRAGMA quick_check;", file);
}

EvaluationStore::~EvaluationStore() { sqlite3_close(db_); }

std::optional<std::pair<std::int64_t, json::object>> EvaluationStore::find(const std::string &key) {
  std::lock_guard lock(mutex_);
  Statement query(db_, "SELECT id, result_json FROM evaluations WHERE request_key = ?");
  query.bind(1, key);
  if (query.step() != SQLITE_ROW)
    return std::nullopt;
  boost::system::error_code error;
  json::value value = json::parse(query.text(1), error);
  if (error || !value.is_object())
    return std::nullopt;
  return std::make_pair(query.integer(0), std::move(value.get_object()));
}

std::int64_t EvaluationStore::insert(const StoredEvaluation &evaluation) {
  std::lock_guard lock(mutex_);
  Statement statement(db_, "INSERT INTO evaluations (created_at, request_key, task, source, source_hash, status, "
                           "speedup, r_total, gpu, tool_versions, result_json) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
                           "ON CONFLICT(request_key) DO NOTHING");
  statement.bind(1, now());
  statement.bind(2, evaluation.key);
  statement.bind(3, evaluation.task);
  statement.bind(4, evaluation.source);
  statement.bind(5, evaluation.sourceHash);
  statement.bind(6, evaluation.status);
  statement.bind(7, number(evaluation.result, {"timing", "speedup"}));
  statement.bind(8, number(evaluation.result, {"reward", "total"}));
  statement.bind(9, evaluation.gpu);
  statement.bind(10, evaluation.toolVersions);
  statement.bind(11, contracts::validUtf8(json::serialize(evaluation.result))); // read back by a strict parser
  statement.step();
  Statement id(db_, "SELECT id FROM evaluations WHERE request_key = ?");
  id.bind(1, evaluation.key);
  id.step();
  return id.integer(0);
}

std::int64_t EvaluationStore::count() {
  std::lock_guard lock(mutex_);
  Statement query(db_, "SELECT COUNT(*) FROM evaluations");
  query.step();
  return query.integer(0);
}

std::int64_t EvaluationStore::exportJsonl(std::ostream &out, const std::string &storeName,
                                          std::set<std::string> *seen) {
  std::lock_guard lock(mutex_);
  Statement query(db_, "SELECT id, created_at, task, status, result_json, source_hash, gpu, request_key "
                       "FROM evaluations ORDER BY id");
  std::int64_t rows = 0;
  while (query.step() == SQLITE_ROW) {
    const std::string key = query.text(7);
    if (seen && !seen->insert(key).second)
      continue; // the same evaluation, exported from an earlier store
    boost::system::error_code error;
    json::value result = json::parse(query.text(4), error);
    if (error || !result.is_object())
      continue;
    const json::object &object = result.get_object();
    json::object line{{"id", query.integer(0)},
                      {"time", query.text(1)},
                      {"task", query.text(2)},
                      {"status", query.text(3)},
                      {"source_hash", query.text(5)},
                      {"gpu", query.text(6)},
                      {"key", key}};
    if (!storeName.empty())
      line["store"] = storeName;
    const auto speedup = number(object, {"timing", "speedup"});
    line["speedup"] = speedup ? json::value(*speedup) : json::value(nullptr);
    const auto *features = object.if_contains("features");
    line["features"] = features && features->is_object() && features->get_object().contains("vector")
                           ? features->get_object().at("vector")
                           : json::value(nullptr);
    const json::value *unknown =
        features && features->is_object() ? features->get_object().if_contains("unknown") : nullptr;
    line["features_unknown"] = unknown ? *unknown : json::array();
    if (const auto *reward = object.if_contains("reward"))
      line["reward"] = *reward;
    out << json::serialize(line) << "\n";
    ++rows;
  }
  return rows;
}

} // namespace cudaperf
