// Tests of tuning_db/sqlite.h: the pragmas a Connection sets, typed Statement round trips,
// statement reuse, WriteTransaction rollback, and how SQLite errors reach the user.
#include "tuning_db/sqlite.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"

namespace ktune::sqlite {
namespace {

using tuning_db::testing::TempDirTest;

class SqliteConnection : public TempDirTest {};
class SqliteStatement : public TempDirTest {};
class SqliteTransaction : public TempDirTest {};
class SqliteErrors : public TempDirTest {};

int64_t single_int(Connection& conn, const std::string& sql) {
  Statement s(conn, sql);
  EXPECT_TRUE(s.step()) << sql;
  return s.column_int64(0);
}

std::string single_text(Connection& conn, const std::string& sql) {
  Statement s(conn, sql);
  EXPECT_TRUE(s.step()) << sql;
  return s.column_text(0);
}

// Expects `fn` to throw UserError whose message contains every one of `parts`.
template <typename Fn>
void expect_user_error(Fn&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << part;
    }
  }
}

TEST_F(SqliteConnection, OpenSetsBusyTimeoutForeignKeysAndSynchronousAndWalOnRequest) {
  Connection conn = Connection::open(file("a.db"), OpenMode::kCreate, 1234);
  EXPECT_EQ(single_text(conn, "PRAGMA journal_mode"), "delete");  // nothing written on open
  conn.use_wal();
  EXPECT_EQ(single_text(conn, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(single_int(conn, "PRAGMA foreign_keys"), 1);
  EXPECT_EQ(single_int(conn, "PRAGMA synchronous"), 1);  // NORMAL
  EXPECT_EQ(single_int(conn, "PRAGMA busy_timeout"), 1234);
  EXPECT_FALSE(conn.read_only());
}

TEST_F(SqliteConnection, ReadModesRequireAnExistingFileAndDoNotCreateIt) {
  const std::string path = file("missing.db");
  expect_user_error([&] { Connection::open(path, OpenMode::kReadOnly); },
                    {path, "no such tuning database"});
  expect_user_error([&] { Connection::open(path, OpenMode::kReadWrite); }, {path});
  EXPECT_FALSE(std::ifstream(path).good());
}

TEST_F(SqliteConnection, MovedConnectionStaysUsable) {
  Connection a = Connection::open(file("a.db"), OpenMode::kCreate);
  Connection b = std::move(a);
  b.exec("CREATE TABLE t (x INTEGER)");
  EXPECT_EQ(single_int(b, "SELECT count(*) FROM sqlite_master WHERE name = 't'"), 1);
  EXPECT_EQ(b.path(), file("a.db"));
}

TEST_F(SqliteStatement, BindsAndReadsEveryType) {
  Connection conn = Connection::open(file("a.db"), OpenMode::kCreate);
  conn.exec("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB, n INTEGER)");
  Statement insert(conn, "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)");
  const std::vector<uint8_t> blob = {0, 1, 2, 255};
  insert.bind(1, int64_t{1} << 40).bind(2, 2.5).bind(3, std::string("he\0llo", 6));
  insert.bind_blob(4, blob).bind(5, std::optional<int64_t>()).run();

  Statement select(conn, "SELECT i, d, s, b, n FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.column_int64(0), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(select.column_double(1), 2.5);
  EXPECT_EQ(select.column_text(2), std::string("he\0llo", 6));
  EXPECT_EQ(select.column_blob(3), blob);
  EXPECT_TRUE(select.is_null(4));
  EXPECT_EQ(select.column_optional_int64(4), std::nullopt);
  EXPECT_EQ(select.column_optional_double(1), 2.5);
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteStatement, ResetsAtTheEndAndWhenReboundAfterAnEarlyExit) {
  Connection conn = Connection::open(file("a.db"), OpenMode::kCreate);
  conn.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3)");
  Statement s(conn, "SELECT x FROM t WHERE x >= ?1 ORDER BY x");
  s.bind(1, 2);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_int64(0), 2);  // stop early, then reuse with another binding
  s.bind(1, 1);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_int64(0), 1);
  int rows = 1;
  while (s.step()) ++rows;
  EXPECT_EQ(rows, 3);
  // After the end the statement was reset: it runs again from the first row.
  s.bind(1, 3);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_int64(0), 3);
}

TEST_F(SqliteStatement, ErrorsCarryTheMessageAndTheSql) {
  Connection conn = Connection::open(file("a.db"), OpenMode::kCreate);
  try {
    Statement bad(conn, "SELECT nope FROM nowhere");
    ADD_FAILURE() << "prepared bad SQL";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no such table: nowhere"), std::string::npos) << message;
    EXPECT_NE(message.find("SELECT nope FROM nowhere"), std::string::npos) << message;
    EXPECT_EQ(dynamic_cast<const UserError*>(&e), nullptr) << "bad SQL is not a user error";
  }
  conn.exec("CREATE TABLE t (x INTEGER NOT NULL)");
  Statement insert(conn, "INSERT INTO t VALUES (?1)");
  try {
    insert.bind(1, nullptr).run();
    ADD_FAILURE() << "NOT NULL was not enforced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("NOT NULL constraint failed: t.x"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("INSERT INTO t VALUES"), std::string::npos);
  }
  insert.bind(1, 7).run();  // usable after the error
  EXPECT_EQ(single_int(conn, "SELECT x FROM t"), 7);
}

TEST_F(SqliteTransaction, CommitKeepsAndDestructorRollsBack) {
  Connection conn = Connection::open(file("a.db"), OpenMode::kCreate);
  conn.exec("CREATE TABLE t (x INTEGER)");
  {
    WriteTransaction tx(conn);
    conn.exec("INSERT INTO t VALUES (1)");
    tx.commit();
  }
  {
    WriteTransaction tx(conn);
    conn.exec("INSERT INTO t VALUES (2)");
  }  // no commit
  try {
    WriteTransaction tx(conn);
    conn.exec("INSERT INTO t VALUES (3)");
    throw std::runtime_error("interrupted");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(single_int(conn, "SELECT group_concat(x) = '1' FROM t"), 1);
  EXPECT_EQ(single_int(conn, "SELECT count(*) FROM t"), 1);
}

TEST_F(SqliteTransaction, SecondWriterWaitsThenReportsTheLock) {
  const std::string path = file("a.db");
  Connection a = Connection::open(path, OpenMode::kCreate);
  a.exec("CREATE TABLE t (x INTEGER)");
  Connection b = Connection::open(path, OpenMode::kReadWrite, /*busy_timeout_ms=*/50);
  WriteTransaction hold(a);
  expect_user_error([&] { WriteTransaction tx(b); }, {path, "locked"});
}

TEST_F(SqliteErrors, FileThatIsNotSqliteIsNamed) {
  const std::string path = file("notes.db");
  std::ofstream(path) << "these are my notes, not a database, but long enough to matter\n"
                      << std::string(4096, 'x');
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kReadWrite, OpenMode::kCreate}) {
    expect_user_error([&] { Connection::open(path, mode); },
                      {path + ": not a ktune tuning database (file is not SQLite"});
  }
}

TEST_F(SqliteErrors, DirectoryIsRefused) {
  expect_user_error([&] { Connection::open(dir_, OpenMode::kCreate); }, {dir_, "is a directory"});
}

TEST_F(SqliteErrors, ReadOnlyConnectionRefusesWritesClearly) {
  const std::string path = file("a.db");
  {
    Connection conn = Connection::open(path, OpenMode::kCreate);
    conn.exec("CREATE TABLE t (x INTEGER)");
  }
  Connection ro = Connection::open(path, OpenMode::kReadOnly);
  EXPECT_TRUE(ro.read_only());
  EXPECT_EQ(single_int(ro, "SELECT count(*) FROM t"), 0);
  expect_user_error([&] { ro.exec("INSERT INTO t VALUES (1)"); },
                    {path, "cannot write: the database was opened read-only"});
  expect_user_error([&] { Statement(ro, "INSERT INTO t VALUES (1)").run(); }, {path, "read-only"});
}

TEST_F(SqliteErrors, FullDiskIsReportedAsSuch) {
  const std::string path = file("a.db");
  Connection conn = Connection::open(path, OpenMode::kCreate);
  conn.exec("CREATE TABLE t (x BLOB)");
  // Cap the file at its current size: the next pages cannot be allocated, as on a full disk.
  const int64_t pages = single_int(conn, "PRAGMA page_count");
  conn.exec("PRAGMA max_page_count = " + std::to_string(pages + 1));
  Statement insert(conn, "INSERT INTO t VALUES (?1)");
  const std::vector<uint8_t> blob(64 * 1024, 7);
  try {
    for (int i = 0; i < 100; ++i) insert.bind_blob(1, blob).run();
    ADD_FAILURE() << "expected an EnvironmentError";
  } catch (const EnvironmentError& e) {  // the machine failed: exit 1
    for (const std::string& part : {path, std::string("the disk is full"), std::string("rows committed so far are kept")}) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ktune::sqlite
