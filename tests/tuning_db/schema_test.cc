// Tests of tuning_db/schema.cc: versions, idempotent and atomic migrations, and refusal of
// files made by newer ktunes or by other programs.
#include "tuning_db/schema.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"

namespace ktune::tuning_db {
namespace {

using testing::query_int;
using testing::query_text;
using testing::TempDirTest;

class Schema : public TempDirTest {};

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

// Everything the schema defines, as text, to compare two files.
std::string schema_dump(const std::string& path) {
  return query_text(path,
                    "SELECT group_concat(type || ' ' || name || ': ' || coalesce(sql, ''), "
                    "char(10)) FROM (SELECT * FROM sqlite_master ORDER BY type, name)");
}

TEST_F(Schema, FreshFileGetsCurrentVersionApplicationIdAndTables) {
  const std::string path = file("a.db");
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    migrate(conn);
    EXPECT_EQ(schema_version(conn), kSchemaVersion);
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(query_int(path, "PRAGMA application_id"), kApplicationId);
  for (const char* table :
       {"devices", "workloads", "schedules", "measurements", "models", "runs", "bench_results"}) {
    EXPECT_EQ(query_int(path, std::string("SELECT count(*) FROM sqlite_master WHERE type = "
                                          "'table' AND name = '") +
                                  table + "'"),
              1)
        << table;
  }
  EXPECT_EQ(migrations().back().version, kSchemaVersion);
}

TEST_F(Schema, MigratingTwiceChangesNothing) {
  const std::string path = file("a.db");
  sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
  migrate(conn);
  const std::string first = schema_dump(path);
  migrate(conn);
  sqlite::Connection again = sqlite::Connection::open(path, sqlite::OpenMode::kReadWrite);
  migrate(again);
  EXPECT_EQ(schema_dump(path), first);
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), kSchemaVersion);
}

TEST_F(Schema, OlderFileIsMigratedAndKeepsItsRows) {
  const std::string path = file("a.db");
  const std::vector<Migration> v1 = {{1, "t", "CREATE TABLE t (x INTEGER)"}};
  std::vector<Migration> v2 = v1;
  v2.push_back({2, "t.y", "ALTER TABLE t ADD COLUMN y TEXT NOT NULL DEFAULT 'new'"});
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    migrate(conn, v1);
    conn.exec("INSERT INTO t(x) VALUES (41), (42)");
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), 1);
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kReadWrite);
    migrate(conn, v2);
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), 2);
  EXPECT_EQ(query_int(path, "SELECT sum(x) FROM t WHERE y = 'new'"), 83);
}

// A file made by the first released schema gains bench_results and keeps its rows.
TEST_F(Schema, VersionOneFileGainsBenchResults) {
  const std::string path = file("v1.db");
  const std::vector<Migration> v1(migrations().begin(), migrations().begin() + 1);
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    migrate(conn, v1);
    conn.exec("INSERT INTO devices(key, target, created_at) VALUES ('d', 'host', 1)");
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'bench_results'"), 0);
  {
    TuningDb db = testing::open_db(path);
    BenchResultRecord r;
    r.bench_uuid = "b";
    r.workload_key = "w";
    r.device_key = "d";
    r.method = "roofline";
    r.status = "ok";
    r.median_ns = 10;
    db.record_bench_result(r);
    EXPECT_EQ(db.latest_bench("w", "d").size(), 1u);
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM devices"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM bench_results"), 1);
}

// A version-2 file: its runs table is rebuilt with pid and 'killed', and the measurements
// that refer to its runs still do.
TEST_F(Schema, VersionTwoRunsGainPidAndKilledAndKeepTheirMeasurements) {
  const std::string path = file("v2.db");
  const std::vector<Migration> v2(migrations().begin(), migrations().begin() + 2);
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    migrate(conn, v2);
    conn.exec(
        "INSERT INTO devices(id, key, target, created_at) VALUES (1, 'd', 'host', 1);"
        "INSERT INTO workloads(id, key, name, family_key, created_at) VALUES (1, 'w', 'w', 'f', 1);"
        "INSERT INTO schedules(id, workload_id, hash, json, created_at) VALUES (1, 1, 'h', '{}', 1);"
        "INSERT INTO runs(id, uuid, started_at, host, status) VALUES (7, 'run-7', 1, 'here', 'running');"
        "INSERT INTO measurements(uuid, schedule_id, workload_id, device_id, run_id, status, created_at) "
        "VALUES ('m', 1, 1, 1, 7, 'rejected', 1);");
  }
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kReadWrite);
    migrate(conn);
    EXPECT_EQ(schema_version(conn), kSchemaVersion);
    // Foreign keys are on again: a measurement of a run that does not exist is refused.
    EXPECT_THROW(conn.exec("INSERT INTO measurements(uuid, schedule_id, workload_id, device_id, run_id, status, "
                           "created_at) VALUES ('m2', 1, 1, 1, 99, 'rejected', 1)"),
                 std::exception);
  }
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM runs WHERE id = 7 AND pid IS NULL AND host = 'here'"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id"), 1);
  EXPECT_EQ(query_text(path, "SELECT sql LIKE '%killed%' FROM sqlite_master WHERE name = 'runs'"), "1");
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_v3'"), 0);
}

TEST_F(Schema, FailingMigrationLeavesTheFileAsItWas) {
  const std::string path = file("a.db");
  const std::vector<Migration> v1 = {{1, "t", "CREATE TABLE t (x INTEGER)"}};
  std::vector<Migration> broken = v1;
  broken.push_back({2, "u", "CREATE TABLE u (x INTEGER)"});
  broken.push_back({3, "bad", "ALTER TABLE missing ADD COLUMN y TEXT"});
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    migrate(conn, v1);
    EXPECT_THROW(migrate(conn, broken), std::runtime_error);
  }
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'u'"), 0);
}

TEST_F(Schema, NewerFileIsRefusedWithBothVersions) {
  const std::string path = file("a.db");
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    migrate(conn);
    conn.exec("PRAGMA user_version = 99");
  }
  const std::string expected = path +
                               ": made by a newer ktune (schema 99, this ktune reads up to " +
                               std::to_string(kSchemaVersion) + ")";
  EXPECT_NE(error_of([&] { testing::open_db(path); }).find(expected), std::string::npos);
  EXPECT_NE(error_of([&] { testing::open_db(path, sqlite::OpenMode::kReadOnly); }).find(expected),
            std::string::npos);
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), 99);  // untouched
}

TEST_F(Schema, SqliteFileOfAnotherProgramIsRefusedAndUntouched) {
  const std::string path = file("other.db");
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    conn.exec("CREATE TABLE photos (id INTEGER); PRAGMA user_version = 3");
  }
  const std::string message = error_of([&] { testing::open_db(path); });
  EXPECT_NE(message.find(path + ": not a ktune tuning database"), std::string::npos) << message;
  EXPECT_NE(message.find("photos"), std::string::npos) << message;
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'devices'"), 0);
}

TEST_F(Schema, ReadOnlyOpenRefusesEmptyAndOlderFiles) {
  const std::string empty = file("empty.db");
  { sqlite::Connection::open(empty, sqlite::OpenMode::kCreate); }
  EXPECT_NE(error_of([&] {
              testing::open_db(empty, sqlite::OpenMode::kReadOnly);
            }).find("not a ktune tuning database (an empty SQLite file)"),
            std::string::npos);

  const std::string older = file("older.db");
  {
    sqlite::Connection conn = sqlite::Connection::open(older, sqlite::OpenMode::kCreate);
    migrate(conn);
    conn.exec("PRAGMA user_version = 0");
  }
  // A read-only open cannot migrate; the file claims to predate the current schema.
  const std::string message =
      error_of([&] { testing::open_db(older, sqlite::OpenMode::kReadOnly); });
  EXPECT_NE(message.find(older + ": made by an older ktune (schema 0, this ktune reads " +
                         std::to_string(kSchemaVersion) + ")"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("ktune db vacuum --db " + older), std::string::npos) << message;
}

}  // namespace
}  // namespace ktune::tuning_db
