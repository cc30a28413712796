// Turns a SQLite result code into the right error tier (STYLE.md 6.4): conditions a person
// can fix (not a SQLite file, corruption, read-only, disk full, locked, cannot open) become
// ktune::UserError naming the file; everything else (bad SQL, a violated constraint) is a
// std::runtime_error. Both carry sqlite3_errmsg and the SQL that failed.
#pragma once

#include <string>
#include <string_view>

struct sqlite3;

namespace ktune::sqlite::internal {

// Throws the error for `rc` returned by `db` (may be null) while running `sql` (may be
// empty) on the file `path`. `read_only` says whether the connection was opened read-only.
[[noreturn]] void throw_error(sqlite3* db, int rc, const std::string& path, std::string_view sql,
                              bool read_only);

}  // namespace ktune::sqlite::internal
