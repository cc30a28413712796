// Damaged and foreign files through TuningDb::open: each becomes an error that names the
// file and says what is wrong (UserError for a file that is not ours, EnvironmentError for a
// damaged one), never a crash or a silently created empty database.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::seed;
using testing::TempDirTest;

class TuningDbFileErrors : public TempDirTest {
 protected:
  // A closed, checkpointed database with enough rows to span many pages.
  std::string make_db(const std::string& name) {
    const std::string path = file(name);
    auto s = seed(path);
    for (int i = 0; i < 600; ++i) {
      s.add("schedule-" + std::to_string(i) + std::string(100, 'p'), 1000 + i, 1, i);
    }
    return path;
  }

  // Opens and reads everything.
  static void read_all(const std::string& path, sqlite::OpenMode mode) {
    TuningDb db = open_db(path, mode);
    db.stats();
    db.best_all();
    std::ostringstream sink;
    db.export_json(sink);
  }

  // read_all's UserError or EnvironmentError message, or "(no error)".
  static std::string error_reading(const std::string& path, sqlite::OpenMode mode) {
    try {
      read_all(path, mode);
    } catch (const UserError& e) {
      return e.what();
    } catch (const EnvironmentError& e) {
      return e.what();
    }
    return "(no error)";
  }

  // Overwrites `bytes` bytes of `path` at `offset` with noise.
  static void garble(const std::string& path, std::streamoff offset, size_t bytes) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string noise(bytes, '\xA5');
    f.seekp(offset);
    f.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
};

TEST_F(TuningDbFileErrors, TextFileIsNotATuningDatabase) {
  const std::string path = file("tuning.db");
  std::ofstream(path) << "id,median\n1,2\n" << std::string(3000, '#');
  for (auto mode : {sqlite::OpenMode::kReadOnly, sqlite::OpenMode::kCreate}) {
    const std::string message = error_reading(path, mode);
    EXPECT_EQ(message.rfind(path + ": not a ktune tuning database (file is not SQLite: ", 0), 0u)
        << message;
  }
  EXPECT_EQ(std::filesystem::file_size(path), 3014u);  // untouched
}

TEST_F(TuningDbFileErrors, MissingFileIsNotCreatedByReadOnlyOpen) {
  const std::string path = file("nope.db");
  EXPECT_EQ(error_reading(path, sqlite::OpenMode::kReadOnly),
            path + ": no such tuning database (the file does not exist)");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(TuningDbFileErrors, OverwrittenHeaderIsNotSqlite) {
  const std::string path = make_db("a.db");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.write("garbage garbage!", 16);  // the magic string
  }
  EXPECT_NE(
      error_reading(path, sqlite::OpenMode::kReadOnly).find(path + ": not a ktune tuning database"),
      std::string::npos);
}

TEST_F(TuningDbFileErrors, TruncatedFileIsReportedAsCorrupted) {
  const std::string path = make_db("a.db");
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 64u * 1024);
  std::filesystem::resize_file(path, size / 2);
  const std::string message = error_reading(path, sqlite::OpenMode::kReadOnly);
  EXPECT_EQ(message.rfind(path + ": the database file is corrupted", 0), 0u) << message;
  EXPECT_NE(message.find(".recover"), std::string::npos) << message;
  EXPECT_NE(message.find("ktune db export-json --db"), std::string::npos) << message;
  EXPECT_THROW(read_all(path, sqlite::OpenMode::kReadOnly), EnvironmentError);  // exit 1, not 2
}

TEST_F(TuningDbFileErrors, GarbledPagesAreReportedAsCorrupted) {
  const std::string path = make_db("a.db");
  const auto size = std::filesystem::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string noise(8192, '\xA5');
    for (std::streamoff at = 8192; at + 8192 < static_cast<std::streamoff>(size); at += 16384) {
      f.seekp(at);
      f.write(noise.data(), static_cast<std::streamsize>(noise.size()));
    }
  }
  const std::string message = error_reading(path, sqlite::OpenMode::kReadOnly);
  EXPECT_EQ(message.rfind(path + ": the database file is corrupted", 0), 0u) << message;
}

// One damaged page that a best query does not read is still found by check_pages, which
// query and export run before they answer.
TEST_F(TuningDbFileErrors, CheckPagesFindsADamagedPageNoQueryTouched) {
  const std::string path = make_db("a.db");
  EXPECT_NO_THROW(open_db(path, sqlite::OpenMode::kReadOnly).check_pages());
  const auto pages = static_cast<std::streamoff>(std::filesystem::file_size(path) / 4096);
  garble(path, (pages - 2) * 4096 + 100, 3000);  // inside one of the last pages
  TuningDb db = open_db(path, sqlite::OpenMode::kReadOnly);
  try {
    db.check_pages();
    ADD_FAILURE() << "expected an EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": the database file is corrupted", 0), 0u) << e.what();
  }
}


TEST_F(TuningDbFileErrors, ADatabaseInADirectoryItCannotWriteIsStillRead) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories; run as a user to check this";
  const std::string dir = file("read_only");
  std::filesystem::create_directory(dir);
  const std::string path = make_db("read_only/tuning.db");
  std::filesystem::permissions(dir, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const std::string message = error_reading(path, sqlite::OpenMode::kReadOnly);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  EXPECT_EQ(message, "(no UserError)");
}

}  // namespace
}  // namespace ktune::tuning_db
