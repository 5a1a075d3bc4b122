// The store opens files written before content keys were SHA-256: every row
// kept, source_hash rewritten from the stored source, done once.
#include "cudaperf/daemon/EvaluationStore.h"
#include "cudaperf/contracts/ContentKey.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using cudaperf::EvaluationStore;

namespace {

// Exactly the table an earlier daemon made (user_version 0), with SHA-1 hashes.
void writeSha1Store(const fs::path &file, const std::vector<std::string> &sources) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  std::string sql = "CREATE TABLE evaluations (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, "
                    "request_key TEXT NOT NULL UNIQUE, task TEXT NOT NULL, source TEXT NOT NULL, "
                    "source_hash TEXT NOT NULL, status TEXT NOT NULL, speedup REAL, r_total REAL, "
                    "gpu TEXT NOT NULL, tool_versions TEXT NOT NULL, result_json TEXT NOT NULL);";
  for (std::size_t i = 0; i < sources.size(); ++i)
    sql += "INSERT INTO evaluations VALUES (" + std::to_string(i + 1) + ", '2026-11-01T00:00:00Z', 'key" +
           std::to_string(i) + "', 'saxpy', '" + sources[i] +
           "', '9177217ae1660d1e09072817ab2e0fb3d88801e2', 'ok', 2.0, 1.5, 'H200', 'v', "
           "'{\"status\":\"ok\",\"timing\":{\"speedup\":2.0}}');";
  char *error = nullptr;
  const int status = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(status, SQLITE_OK) << message;
}

std::vector<boost::json::object> exported(EvaluationStore &store) {
  std::ostringstream out;
  store.exportJsonl(out);
  std::vector<boost::json::object> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);)
    lines.push_back(boost::json::parse(line).as_object());
  return lines;
}

class EvaluationStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudaperf-store-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

} // namespace

TEST_F(EvaluationStoreTest, RewritesSha1SourceHashesAsSha256AndKeepsEveryRow) {
  const fs::path file = dir_ / "old.db";
  const std::vector<std::string> sources{"__global__ void k() {}", "__global__ void other(float *x) { x[0] = 1; }"};
  writeSha1Store(file, sources);
  EvaluationStore store(file);
  EXPECT_EQ(store.count(), 2);
  const auto lines = exported(store);
  ASSERT_EQ(lines.size(), 2u);
  // Python: sha256(len(s).to_bytes(8, "little") + s) of s = b"__global__ void k() {}"
  EXPECT_EQ(lines[0].at("source_hash").as_string(), "ce41dab4cb4046c2dcec7a86fb5639ad3e9721f1cabef274edb67bb7853b723c");
  EXPECT_EQ(lines[1].at("source_hash").as_string(), cudaperf::contentKey({sources[1]}));
  EXPECT_EQ(lines[0].at("key").as_string(), "key0"); // request keys untouched
  EXPECT_EQ(lines[1].at("speedup").as_double(), 2.0);
  EXPECT_TRUE(store.find("key1").has_value());
}

TEST_F(EvaluationStoreTest, MigratesOnceAndNewRowsUseTheSameHash) {
  const fs::path file = dir_ / "old.db";
  writeSha1Store(file, {"__global__ void k() {}"});
  { EvaluationStore first(file); }
  EvaluationStore store(file); // a second open finds user_version set: nothing to redo
  cudaperf::StoredEvaluation evaluation;
  evaluation.key = "key-new";
  evaluation.task = "saxpy";
  evaluation.source = "__global__ void k() {}";
  evaluation.sourceHash = cudaperf::contentKey({evaluation.source});
  evaluation.status = "ok";
  evaluation.result = {{"status", "ok"}};
  store.insert(evaluation);
  const auto lines = exported(store);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].at("source_hash"), lines[1].at("source_hash")); // old and new rows join
}

TEST_F(EvaluationStoreTest, ANewStoreStartsAtTheSha256Version) {
  const fs::path file = dir_ / "new.db";
  { EvaluationStore store(file); }
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  sqlite3_stmt *statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(statement, 0), 1);
  sqlite3_finalize(statement);
  sqlite3_close(db);
}

// A build of before that still shares the file (a fleet mid-upgrade) adds
// SHA-1 rows after the migration: the next open rewrites them too.
TEST_F(EvaluationStoreTest, RowsAnOlderBuildAddsLaterAreRewrittenAtTheNextOpen) {
  const fs::path file = dir_ / "shared.db";
  { EvaluationStore store(file); }
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  const int status =
      sqlite3_exec(db,
                   "INSERT INTO evaluations (created_at, request_key, task, source, source_hash, status, "
                   "gpu, tool_versions, result_json) VALUES ('2026-12-01T00:00:00Z', 'old-build', "
                   "'saxpy', 'int x;', '9177217ae1660d1e09072817ab2e0fb3d88801e2', 'ok', '', 'v', '{}')",
                   nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_EQ(status, SQLITE_OK);
  EvaluationStore store(file);
  const auto lines = exported(store);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].at("source_hash").as_string(), cudaperf::contentKey({"int x;"}));
}
