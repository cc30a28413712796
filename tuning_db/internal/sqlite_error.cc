#include "tuning_db/internal/sqlite_error.h"

#include <sqlite3.h>

#include <stdexcept>

#include "common/error.h"

namespace ktune::sqlite::internal {
namespace {

// The SQL text, shortened for a message a person reads.
std::string short_sql(std::string_view sql) {
  constexpr size_t kMax = 120;
  std::string out(sql.substr(0, kMax));
  for (char& c : out) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  if (sql.size() > kMax) out += "...";
  return out;
}

}  // namespace

std::string corrupted_message(const std::string& path, const std::string& what_sqlite_said) {
  return "the database file is corrupted (" + what_sqlite_said +
         "); restore it from a backup, or copy what ktune can still read into a new file with "
         "`ktune db export-json --db " + path + " --out rows.json && ktune db import-json --db recovered.db rows.json` "
         "(or salvage more with `sqlite3 " + path + " .recover | sqlite3 recovered.db`)";
}

void throw_error(sqlite3* db, int rc, const std::string& path, std::string_view sql,
                 bool read_only) {
  const int primary = rc & 0xff;
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (detail.empty() || detail == "not an error") detail = sqlite3_errstr(rc);
  const std::string context = sql.empty() ? "" : "; while running `" + short_sql(sql) + "`";

  auto user = [&](const std::string& what) -> UserError {
    return UserError(format_user_error(path, "", what));
  };
  auto environment = [&](const std::string& what) -> EnvironmentError {
    return EnvironmentError(format_user_error(path, "", what));
  };
  switch (primary) {
    case SQLITE_NOTADB:
      throw user("not a ktune tuning database (file is not SQLite: " + detail + ")");
    case SQLITE_CORRUPT:
      throw environment(corrupted_message(path, detail + context));
    case SQLITE_READONLY:
      if (read_only) {
        throw user("cannot write: the database was opened read-only (" + detail + context + ")");
      }
      throw user("cannot write: the database file is read-only (" + detail + context +
                 "); check the permissions of the file and of its directory, where SQLite "
                 "also writes " +
                 path + "-wal and " + path + "-shm");
    case SQLITE_FULL:
      throw environment("the disk is full (" + detail + context +
                 "); free some space and run again: rows committed so far are kept");
    case SQLITE_CANTOPEN:
      throw user("cannot open the database file (" + detail +
                 "); check that its directory exists and is writable");
    case SQLITE_PERM:
    case SQLITE_AUTH:
      throw user("permission denied (" + detail + context + ")");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw user(
          "the database stayed locked by another process for longer than the busy "
          "timeout (" +
          detail + context + "); try again when it finishes");
    case SQLITE_IOERR:
      throw environment("I/O error (" + detail + context + ")");
    default:
      break;
  }
  throw std::runtime_error(path + ": SQLite error " + std::to_string(rc) + ": " + detail +
                           (sql.empty() ? "" : "; while running `" + std::string(sql) + "`"));
}

}  // namespace ktune::sqlite::internal
