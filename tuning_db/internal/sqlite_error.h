// Turns a SQLite result code into the right error tier: conditions a person
// can fix (not a SQLite file, read-only, locked, cannot open) become ktune::UserError naming
// the file; a machine that failed (a corrupted file, a full disk, an I/O error) is a
// ktune::EnvironmentError; everything else (bad SQL, a violated constraint) is a
// std::runtime_error. All carry sqlite3_errmsg and the SQL that failed.
#pragma once

#include <string>
#include <string_view>

struct sqlite3;

namespace ktune::sqlite::internal {

// "the database file is corrupted (WHAT); restore it ... or salvage ..." for `path`.
std::string corrupted_message(const std::string& path, const std::string& what_sqlite_said);

// Throws the error for `rc` returned by `db` (may be null) while running `sql` (may be
// empty) on the file `path`. `read_only` says whether the connection was opened read-only.
[[noreturn]] void throw_error(sqlite3* db, int rc, const std::string& path, std::string_view sql,
                              bool read_only);

}  // namespace ktune::sqlite::internal
