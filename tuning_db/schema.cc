// The schema history of the tuning database and the code that applies it.
// Timestamps are INTEGER milliseconds since the Unix epoch, UTC. JSON columns are checked
// with json_valid(). A measurement repeats its schedule's workload_id so that the best query
// is a single range scan of the partial index `measurements_ok`.
#include "tuning_db/schema.h"

#include <cstdio>

#include "common/check.h"
#include "common/error.h"

namespace ktune::tuning_db {
namespace {

constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE devices (
  id          INTEGER PRIMARY KEY,
  key         TEXT NOT NULL UNIQUE,
  target      TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(description)),
  created_at  INTEGER NOT NULL
);
CREATE TABLE workloads (
  id          INTEGER PRIMARY KEY,
  key         TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  family_key  TEXT NOT NULL,
  shapes      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(shapes)),
  spec        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(spec)),
  flops       INTEGER NOT NULL DEFAULT 0 CHECK (flops >= 0),
  bytes       INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0),
  created_at  INTEGER NOT NULL
);
CREATE INDEX workloads_by_name ON workloads(name);
CREATE INDEX workloads_by_family ON workloads(family_key);
CREATE TABLE schedules (
  id          INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  hash        TEXT NOT NULL,
  json        TEXT NOT NULL CHECK (json_valid(json)),
  created_at  INTEGER NOT NULL,
  UNIQUE (workload_id, hash)
);
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,
  started_at     INTEGER NOT NULL,
  ended_at       INTEGER,
  command        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(command)),
  host           TEXT NOT NULL DEFAULT '',
  budget         TEXT NOT NULL DEFAULT '',
  status         TEXT NOT NULL
                 CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
  ktune_version  TEXT NOT NULL DEFAULT '',
  halide_version TEXT NOT NULL DEFAULT ''
);
CREATE TABLE measurements (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,
  schedule_id    INTEGER NOT NULL REFERENCES schedules(id),
  workload_id    INTEGER NOT NULL REFERENCES workloads(id),
  device_id      INTEGER NOT NULL REFERENCES devices(id),
  run_id         INTEGER REFERENCES runs(id),
  status         TEXT NOT NULL
                 CHECK (status IN ('ok', 'rejected', 'build_error', 'build_timeout', 'crash',
                                   'run_timeout', 'runtime_error', 'wrong_result')),
  median_ns      REAL CHECK (median_ns >= 0),
  min_ns         REAL CHECK (min_ns >= 0),
  spread_ns      REAL CHECK (spread_ns >= 0),
  repeats        INTEGER NOT NULL DEFAULT 0,
  threads        INTEGER NOT NULL DEFAULT 0,
  build_ms       REAL,
  predicted      REAL,
  error          TEXT NOT NULL DEFAULT '',
  created_at     INTEGER NOT NULL,
  halide_version TEXT NOT NULL DEFAULT '',
  ktune_version  TEXT NOT NULL DEFAULT '',
  CHECK (status <> 'ok' OR (median_ns IS NOT NULL AND spread_ns IS NOT NULL))
);
CREATE INDEX measurements_ok
  ON measurements(workload_id, device_id, schedule_id, median_ns, spread_ns, created_at)
  WHERE status = 'ok';
CREATE INDEX measurements_by_schedule ON measurements(schedule_id, device_id);
CREATE TABLE models (
  id              INTEGER PRIMARY KEY,
  uuid            TEXT NOT NULL UNIQUE,
  device_id       INTEGER NOT NULL REFERENCES devices(id),
  kind            TEXT NOT NULL,
  feature_version INTEGER NOT NULL,
  blob            BLOB NOT NULL,
  samples         INTEGER NOT NULL DEFAULT 0,
  metrics         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metrics)),
  created_at      INTEGER NOT NULL
);
CREATE INDEX models_latest ON models(device_id, kind, feature_version, created_at);
)sql";

// Version 2: the results of `ktune bench`. Rows name their workload and device by key, since a
// bench may measure workloads that were never tuned; the index serves latest_bench().
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE bench_results (
  id           INTEGER PRIMARY KEY,
  bench_uuid   TEXT NOT NULL,
  workload_key TEXT NOT NULL,
  device_key   TEXT NOT NULL,
  method       TEXT NOT NULL,
  status       TEXT NOT NULL
               CHECK (status IN ('ok', 'failed', 'wrong_result', 'crash', 'timeout',
                                 'unsupported')),
  median_ns    REAL NOT NULL DEFAULT 0 CHECK (median_ns >= 0),
  min_ns       REAL NOT NULL DEFAULT 0 CHECK (min_ns >= 0),
  iqr_ns       REAL NOT NULL DEFAULT 0 CHECK (iqr_ns >= 0),
  repeats      INTEGER NOT NULL DEFAULT 0,
  threads      INTEGER NOT NULL DEFAULT 0,
  detail       TEXT NOT NULL DEFAULT '',
  created_at   INTEGER NOT NULL,
  UNIQUE (bench_uuid, workload_key, method)
);
CREATE INDEX bench_results_latest ON bench_results(workload_key, device_key, created_at);
)sql";

// Runs gain the process id of the tuner and the status 'killed'. SQLite cannot change a
// CHECK constraint in place: the table is rebuilt (foreign keys off, see migrate()).
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE runs_v3 (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,
  started_at     INTEGER NOT NULL,
  ended_at       INTEGER,
  command        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(command)),
  host           TEXT NOT NULL DEFAULT '',
  budget         TEXT NOT NULL DEFAULT '',
  status         TEXT NOT NULL
                 CHECK (status IN ('running', 'completed', 'interrupted', 'failed', 'killed')),
  ktune_version  TEXT NOT NULL DEFAULT '',
  halide_version TEXT NOT NULL DEFAULT '',
  pid            INTEGER CHECK (pid > 0)
);
INSERT INTO runs_v3 (id, uuid, started_at, ended_at, command, host, budget, status, ktune_version,
                     halide_version)
  SELECT id, uuid, started_at, ended_at, command, host, budget, status, ktune_version, halide_version
  FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v3 RENAME TO runs;
)sql";

// Measurements gain the time `ktune db revalidate` superseded them (re-measured by another
// ktune or Halide version). A superseded row stays for the history but no longer counts for
// the best.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE measurements ADD COLUMN stale_at INTEGER CHECK (stale_at > 0);
)sql";

// Measurements gain who timed them: the host, and the MPI rank of a distributed run (NULL
// for a run without MPI).
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE measurements ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN rank INTEGER CHECK (rank >= 0);
)sql";

// What the file says about itself.
struct Header {
  int user_version = 0;             // PRAGMA user_version
  int32_t application_id = 0;       // PRAGMA application_id
  std::vector<std::string> tables;  // names of user tables, sorted
};

Header read_header(sqlite::Connection& conn) {
  Header header;
  sqlite::Statement version(conn, "PRAGMA user_version");
  if (version.step()) header.user_version = static_cast<int>(version.column_int64(0));
  version.reset();
  sqlite::Statement app(conn, "PRAGMA application_id");
  if (app.step()) header.application_id = static_cast<int32_t>(app.column_int64(0));
  app.reset();
  sqlite::Statement tables(conn,
                           "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                           "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
  while (tables.step()) header.tables.push_back(tables.column_text(0));
  return header;
}

bool is_fresh(const Header& header) {
  return header.user_version == 0 && header.application_id == 0 && header.tables.empty();
}

// Refuses files of other programs and of newer ktunes.
void check_header(const sqlite::Connection& conn, const Header& header, int newest) {
  if (header.application_id != kApplicationId && !is_fresh(header)) {
    std::string tables;
    for (const std::string& name : header.tables) tables += (tables.empty() ? "" : ", ") + name;
    char id[16];
    std::snprintf(id, sizeof(id), "0x%08x", static_cast<unsigned>(header.application_id));
    throw UserError(format_user_error(
        conn.path(), "",
        "not a ktune tuning database (a SQLite file of another program: application_id " +
            std::string(id) + ", tables: " + (tables.empty() ? "none" : tables) + ")"));
  }
  if (header.user_version > newest) {
    throw UserError(format_user_error(conn.path(), "",
                                      "made by a newer ktune (schema " +
                                          std::to_string(header.user_version) +
                                          ", this ktune reads up to " + std::to_string(newest) +
                                          "); upgrade ktune to read or write it"));
  }
}

// Foreign keys off for the lifetime of the guard, on again afterwards.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(sqlite::Connection& conn) : conn_(conn) { conn_.exec("PRAGMA foreign_keys=OFF"); }
  ~ForeignKeysOff() {
    try {
      conn_.exec("PRAGMA foreign_keys=ON");
    } catch (...) {
      // A destructor must not throw; the connection is being abandoned anyway.
    }
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  sqlite::Connection& conn_;
};

// Throws when a row refers to a row that is not there.
void check_foreign_keys(sqlite::Connection& conn) {
  sqlite::Statement check(conn, "PRAGMA foreign_key_check");
  if (check.step()) {
    throw std::runtime_error(conn.path() + ": the schema migration left table " + check.column_text(0) +
                             " referring to a missing row of " + check.column_text(2));
  }
}

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> steps = {
      {1, "devices, workloads, schedules, runs, measurements, models", kSchemaV1},
      {2, "bench_results", kSchemaV2},
      {3, "runs: pid, status 'killed'", kSchemaV3},
      {4, "measurements: stale_at (superseded by ktune db revalidate)", kSchemaV4},
      {5, "measurements: host, rank (who timed them)", kSchemaV5},
  };
  return steps;
}

void migrate(sqlite::Connection& conn) { migrate(conn, migrations()); }

void migrate(sqlite::Connection& conn, const std::vector<Migration>& steps) {
  KTUNE_CHECK(!steps.empty()) << "no migrations";
  for (size_t i = 0; i < steps.size(); ++i) {
    KTUNE_CHECK(steps[i].version == static_cast<int>(i) + 1)
        << "migration " << i << " has version " << steps[i].version;
  }
  const int newest = steps.back().version;

  // Most opens find the file current: check without taking the write lock.
  Header header = read_header(conn);
  check_header(conn, header, newest);
  if (header.application_id == kApplicationId && header.user_version == newest) return;

  // Steps that rebuild a table drop it while other tables still refer to it: foreign keys
  // are switched off for the migration (it cannot be done inside a transaction) and checked
  // before it commits.
  ForeignKeysOff keys_off(conn);
  sqlite::WriteTransaction tx(conn);
  header = read_header(conn);  // another process may have migrated it meanwhile
  check_header(conn, header, newest);
  if (header.application_id != kApplicationId) {
    conn.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  }
  for (const Migration& step : steps) {
    if (step.version <= header.user_version) continue;
    conn.exec(step.sql);
    conn.exec("PRAGMA user_version = " + std::to_string(step.version));
  }
  check_foreign_keys(conn);
  tx.commit();
}

void check_readable(sqlite::Connection& conn) {
  const Header header = read_header(conn);
  if (is_fresh(header)) {
    throw UserError(
        format_user_error(conn.path(), "", "not a ktune tuning database (an empty SQLite file)"));
  }
  check_header(conn, header, kSchemaVersion);
  if (header.user_version < kSchemaVersion) {
    throw UserError(format_user_error(
        conn.path(), "",
        "made by an older ktune (schema " + std::to_string(header.user_version) +
            ", this ktune reads " + std::to_string(kSchemaVersion) +
            "); open it for writing once to upgrade it, e.g. `ktune db vacuum --db " + conn.path() +
            "`"));
  }
}

int schema_version(sqlite::Connection& conn) {
  sqlite::Statement version(conn, "PRAGMA user_version");
  return version.step() ? static_cast<int>(version.column_int64(0)) : 0;
}

}  // namespace ktune::tuning_db
