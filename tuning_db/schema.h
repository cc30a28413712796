// The tuning database schema and its migrations. Each migration moves the file from
// `version - 1` to `version`, recorded in PRAGMA user_version; all pending ones run inside one
// write transaction, so a file is never left half-migrated. PRAGMA application_id marks the
// file as ktune's, so another program's SQLite file is refused instead of being written to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuning_db/sqlite.h"

namespace ktune::tuning_db {

// The schema version this ktune writes and reads.
inline constexpr int kSchemaVersion = 5;
// PRAGMA application_id of a ktune tuning database: "ktun" in ASCII.
inline constexpr int32_t kApplicationId = 0x6b74756e;

// One step of the schema history.
struct Migration {
  int version;          // user_version after this step; steps are numbered 1, 2, 3, ...
  std::string summary;  // what the step changes, for people reading the history
  std::string sql;      // statements that perform it; they must not commit
};

// The migrations of this ktune, in order; the last one's version is kSchemaVersion.
const std::vector<Migration>& migrations();

// Brings a writable database up to the last version of `steps` (default: migrations()).
// A fresh, empty file is stamped with kApplicationId. Throws UserError when the file
// belongs to another program or was made by a newer ktune. Safe to call on every open, and
// from two processes at once (the second finds nothing to do).
void migrate(sqlite::Connection& conn);
void migrate(sqlite::Connection& conn, const std::vector<Migration>& steps);

// Checks that a database opened read-only is a ktune database at exactly kSchemaVersion;
// throws UserError otherwise (read-only connections cannot migrate).
void check_readable(sqlite::Connection& conn);

// PRAGMA user_version of the open database.
int schema_version(sqlite::Connection& conn);

}  // namespace ktune::tuning_db
