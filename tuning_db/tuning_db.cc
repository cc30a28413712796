// TuningDb: opening, the statement cache, writes and the simple lookups. The best query
// lives in tuning_db_best.cc, merge/prune/vacuum in maintenance.cc, and the JSON form in
// json_export.cc and json_import.cc.
#include "tuning_db/tuning_db.h"

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>

#include "common/check.h"
#include "common/error.h"
#include "tuning_db/internal/clock.h"
#include "tuning_db/internal/db_impl.h"
#include "tuning_db/internal/rows.h"
#include "tuning_db/internal/sqlite_error.h"
#include "tuning_db/schema.h"

namespace ktune::tuning_db {

using internal::kDeviceColumns;
using internal::kModelColumns;
using internal::kRunColumns;
using internal::kWorkloadColumns;

// ---------------------------------------------------------------------------------------
// Impl

sqlite::Statement& TuningDb::Impl::stmt(const char* sql) {
  auto it = statements.find(sql);
  if (it == statements.end()) {
    it = statements.emplace(sql, std::make_unique<sqlite::Statement>(conn, sql)).first;
  }
  it->second->reset();  // every use starts from a clean statement
  return *it->second;
}

namespace internal {

bool begin_read(TuningDb::Impl& impl) {
  if (sqlite3_get_autocommit(impl.conn.get()) == 0) return false;
  impl.stmt("BEGIN").run();
  return true;
}

void end_read(TuningDb::Impl& impl, bool began, bool ok) {
  if (!began) return;
  if (ok) {
    impl.stmt("COMMIT").run();
  } else if (sqlite3_get_autocommit(impl.conn.get()) == 0) {
    sqlite3_exec(impl.conn.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

}  // namespace internal

// ---------------------------------------------------------------------------------------
// Opening

TuningDb::TuningDb(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TuningDb::TuningDb(TuningDb&&) noexcept = default;
TuningDb& TuningDb::operator=(TuningDb&&) noexcept = default;
TuningDb::~TuningDb() = default;

TuningDb TuningDb::open(const std::string& path, const OpenOptions& options) {
  sqlite::Connection conn = sqlite::Connection::open(path, options.mode, options.busy_timeout_ms);
  if (options.mode == sqlite::OpenMode::kReadOnly) {
    check_readable(conn);
  } else {
    migrate(conn);
    conn.use_wal();
  }
  conn.exec("PRAGMA cache_size = -16384");  // 16 MiB of page cache
  return TuningDb(std::make_unique<Impl>(std::move(conn), options.versions));
}

const std::string& TuningDb::path() const { return impl_->conn.path(); }
const Versions& TuningDb::versions() const { return impl_->versions; }

// ---------------------------------------------------------------------------------------
// Writes

namespace {

// Runs `put` in its own write transaction, or inside the one batch() opened.
template <typename Put>
int64_t write_one(TuningDb::Impl& db, Put&& put) {
  if (db.in_batch) return put().first;
  sqlite::WriteTransaction tx(db.conn);
  const int64_t id = put().first;
  tx.commit();
  return id;
}

}  // namespace

int64_t TuningDb::upsert_device(const DeviceRecord& device) {
  if (auto id = internal::device_id(*impl_, device.key)) return *id;
  return write_one(*impl_, [&] { return internal::put_device(*impl_, device); });
}

int64_t TuningDb::upsert_workload(const WorkloadRecord& workload) {
  if (auto id = internal::workload_id(*impl_, workload.key)) return *id;
  return write_one(*impl_, [&] { return internal::put_workload(*impl_, workload); });
}

int64_t TuningDb::upsert_schedule(int64_t workload_id, const std::string& hash,
                                  const std::string& json) {
  if (auto id = internal::schedule_id(*impl_, workload_id, hash)) return *id;
  ScheduleRecord schedule;
  schedule.workload_id = workload_id;
  schedule.hash = hash;
  schedule.json = json;
  return write_one(*impl_, [&] { return internal::put_schedule(*impl_, schedule); });
}

int64_t TuningDb::begin_run(const RunRecord& run) {
  RunRecord stamped = run;
  if (stamped.ktune_version.empty()) stamped.ktune_version = impl_->versions.ktune;
  if (stamped.halide_version.empty()) stamped.halide_version = impl_->versions.halide;
  return write_one(*impl_, [&] { return internal::put_run(*impl_, stamped); });
}

void TuningDb::end_run(int64_t run_id, RunStatus status) {
  write_one(*impl_, [&] {
    auto& update = impl_->stmt("UPDATE runs SET ended_at = ?2, status = ?3 WHERE id = ?1");
    update.bind(1, run_id).bind(2, internal::now_unix_ms()).bind(3, to_string(status)).run();
    if (sqlite3_changes(impl_->conn.get()) != 1) {
      throw std::invalid_argument(path() + ": end_run: no run with id " + std::to_string(run_id));
    }
    return std::pair<int64_t, bool>(run_id, false);
  });
}

int TuningDb::mark_killed_runs(const std::string& host, const std::function<bool(int64_t)>& alive) {
  std::vector<int64_t> gone;
  {
    auto& running = impl_->stmt("SELECT id, pid FROM runs WHERE status = 'running' AND host = ?1");
    running.bind(1, host);
    while (running.step()) {
      const std::optional<int64_t> pid = running.column_optional_int64(1);
      if (!pid || !alive(*pid)) gone.push_back(running.column_int64(0));
    }
    running.reset();
  }
  for (int64_t run_id : gone) {
    write_one(*impl_, [&] {
      impl_->stmt("UPDATE runs SET status = 'killed' WHERE id = ?1 AND status = 'running'").bind(1, run_id).run();
      return std::pair<int64_t, bool>(run_id, false);
    });
  }
  return static_cast<int>(gone.size());
}

int TuningDb::mark_superseded(const std::string& workload_key, const std::string& device_key) {
  const auto workload = internal::workload_id(*impl_, workload_key);
  const auto device = internal::device_id(*impl_, device_key);
  if (!workload || !device) return 0;
  int marked = 0;
  write_one(*impl_, [&] {
    impl_->stmt(
            "UPDATE measurements SET stale_at = ?1 WHERE workload_id = ?2 AND device_id = ?3 AND "
            "stale_at IS NULL AND (ktune_version <> ?4 OR halide_version <> ?5)")
        .bind(1, internal::now_unix_ms())
        .bind(2, *workload)
        .bind(3, *device)
        .bind(4, impl_->versions.ktune)
        .bind(5, impl_->versions.halide)
        .run();
    marked = sqlite3_changes(impl_->conn.get());
    return std::pair<int64_t, bool>(0, false);
  });
  return marked;
}

void TuningDb::check_pages() {
  impl_->read([&] {
    sqlite::Statement check(impl_->conn, "PRAGMA quick_check(1)");
    const std::string verdict = check.step() ? check.column_text(0) : "no answer";
    if (verdict != "ok") throw EnvironmentError(format_user_error(path(), "", sqlite::internal::corrupted_message(path(), verdict)));
    return 0;
  });
}

void TuningDb::batch(const std::function<void()>& writes) {
  KTUNE_CHECK(!impl_->in_batch) << "TuningDb::batch called inside a batch";
  sqlite::WriteTransaction tx(impl_->conn);
  impl_->in_batch = true;
  try {
    writes();
  } catch (...) {
    impl_->in_batch = false;
    throw;  // tx rolls back
  }
  impl_->in_batch = false;
  tx.commit();
}

int64_t TuningDb::record_measurement(const MeasurementRecord& measurement) {
  MeasurementRecord stamped = measurement;
  if (stamped.ktune_version.empty()) stamped.ktune_version = impl_->versions.ktune;
  if (stamped.halide_version.empty()) stamped.halide_version = impl_->versions.halide;
  return write_one(*impl_, [&] { return internal::put_measurement(*impl_, stamped); });
}

int64_t TuningDb::save_model(const ModelRecord& model) {
  return write_one(*impl_, [&] { return internal::put_model(*impl_, model); });
}

// ---------------------------------------------------------------------------------------
// Lookups

std::vector<WorkloadRecord> TuningDb::find_workloads(const std::string& name_or_key) {
  static const std::string exact_sql = std::string("SELECT ") + kWorkloadColumns +
                                       " FROM workloads WHERE key = ?1 OR name = ?1 "
                                       "ORDER BY name, key";
  static const std::string prefix_sql = std::string("SELECT ") + kWorkloadColumns +
                                        " FROM workloads WHERE length(?1) >= 6 AND "
                                        "substr(key, 1, length(?1)) = ?1 ORDER BY name, key";
  std::vector<WorkloadRecord> out;
  // A key prefix is only tried when nothing matches exactly.
  for (const std::string* sql : {&exact_sql, &prefix_sql}) {
    auto& s = impl_->stmt(sql->c_str()).bind(1, name_or_key);
    while (s.step()) out.push_back(internal::read_workload(s));
    if (!out.empty()) break;
  }
  return out;
}

std::vector<WorkloadRecord> TuningDb::workloads_in_family(const std::string& family_key) {
  static const std::string sql = std::string("SELECT ") + kWorkloadColumns +
                                 " FROM workloads WHERE family_key = ?1 ORDER BY key";
  auto& s = impl_->stmt(sql.c_str()).bind(1, family_key);
  std::vector<WorkloadRecord> out;
  while (s.step()) out.push_back(internal::read_workload(s));
  return out;
}

std::vector<DeviceRecord> TuningDb::devices() {
  static const std::string sql =
      std::string("SELECT ") + kDeviceColumns + " FROM devices ORDER BY key";
  auto& s = impl_->stmt(sql.c_str());
  s.reset();
  std::vector<DeviceRecord> out;
  while (s.step()) out.push_back(internal::read_device(s));
  return out;
}

std::optional<DeviceRecord> TuningDb::find_device(const std::string& device_key) {
  static const std::string sql =
      std::string("SELECT ") + kDeviceColumns + " FROM devices WHERE key = ?1";
  auto& s = impl_->stmt(sql.c_str()).bind(1, device_key);
  if (!s.step()) return std::nullopt;
  DeviceRecord device = internal::read_device(s);
  s.reset();
  return device;
}

std::vector<std::string> TuningDb::measured_schedule_hashes(const std::string& workload_key,
                                                            const std::string& device_key) {
  auto& s = impl_->stmt(
      "SELECT DISTINCT s.hash FROM schedules s JOIN workloads w ON w.id = s.workload_id "
      "JOIN measurements m ON m.schedule_id = s.id JOIN devices d ON d.id = m.device_id "
      "WHERE w.key = ?1 AND d.key = ?2 ORDER BY s.hash");
  s.bind(1, workload_key).bind(2, device_key);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

std::vector<ScheduleRecord> TuningDb::timed_out_schedules(const std::string& workload_key,
                                                          const std::string& device_key) {
  auto& s = impl_->stmt(
      "SELECT DISTINCT s.id, s.workload_id, s.hash, s.json FROM schedules s "
      "JOIN workloads w ON w.id = s.workload_id JOIN measurements m ON m.schedule_id = s.id "
      "JOIN devices d ON d.id = m.device_id WHERE w.key = ?1 AND d.key = ?2 AND m.status = 'run_timeout' "
      "AND NOT EXISTS (SELECT 1 FROM measurements ok WHERE ok.schedule_id = s.id "
      "AND ok.device_id = d.id AND ok.status = 'ok') ORDER BY s.hash");
  s.bind(1, workload_key).bind(2, device_key);
  std::vector<ScheduleRecord> out;
  while (s.step()) {
    ScheduleRecord r;
    r.id = s.column_int64(0);
    r.workload_id = s.column_int64(1);
    r.hash = s.column_text(2);
    r.json = s.column_text(3);
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<RunRecord> TuningDb::find_run(int64_t run_id) {
  static const std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1";
  auto& s = impl_->stmt(sql.c_str()).bind(1, run_id);
  if (!s.step()) return std::nullopt;
  RunRecord run = internal::read_run(s);
  s.reset();
  return run;
}

std::optional<ModelRecord> TuningDb::load_latest_model(const std::string& device_key,
                                                       const std::string& kind,
                                                       int feature_version) {
  static const std::string sql =
      std::string("SELECT ") + kModelColumns +
      " FROM models WHERE device_id = (SELECT id FROM devices WHERE key = ?1) AND kind = ?2 "
      "AND feature_version = ?3 ORDER BY created_at DESC, uuid DESC LIMIT 1";
  auto& s = impl_->stmt(sql.c_str()).bind(1, device_key).bind(2, kind).bind(3, feature_version);
  if (!s.step()) return std::nullopt;
  ModelRecord model = internal::read_model(s);
  s.reset();
  return model;
}

DbStats TuningDb::stats() {
  return impl_->read([&] {
    DbStats stats;
    auto count = [&](const char* sql) {
      auto& s = impl_->stmt(sql);
      s.reset();
      const int64_t n = s.step() ? s.column_int64(0) : 0;
      s.reset();
      return n;
    };
    stats.schema_version = static_cast<int>(count("PRAGMA user_version"));
    stats.rows.devices = count("SELECT count(*) FROM devices");
    stats.rows.workloads = count("SELECT count(*) FROM workloads");
    stats.rows.schedules = count("SELECT count(*) FROM schedules");
    stats.rows.runs = count("SELECT count(*) FROM runs");
    stats.rows.measurements = count("SELECT count(*) FROM measurements");
    stats.rows.models = count("SELECT count(*) FROM models");
    stats.rows.bench_results = count("SELECT count(*) FROM bench_results");
    stats.free_bytes = count("PRAGMA freelist_count") * count("PRAGMA page_size");

    std::error_code ec;
    const auto file_bytes = std::filesystem::file_size(path(), ec);
    stats.file_bytes = ec ? 0 : static_cast<int64_t>(file_bytes);
    const auto wal_bytes = std::filesystem::file_size(path() + "-wal", ec);
    stats.wal_bytes = ec ? 0 : static_cast<int64_t>(wal_bytes);

    auto& per_device = impl_->stmt(
        "SELECT d.key, d.target, "
        "(SELECT count(DISTINCT workload_id) FROM measurements WHERE device_id = d.id), "
        "(SELECT count(*) FROM measurements WHERE device_id = d.id), "
        "(SELECT count(*) FROM measurements WHERE device_id = d.id AND status = 'ok') "
        "FROM devices d ORDER BY d.key");
    per_device.reset();
    while (per_device.step()) {
      stats.devices.push_back({per_device.column_text(0), per_device.column_text(1),
                               per_device.column_int64(2), per_device.column_int64(3),
                               per_device.column_int64(4)});
    }
    auto& statuses =
        impl_->stmt("SELECT status, count(*) FROM measurements GROUP BY status ORDER BY status");
    statuses.reset();
    while (statuses.step())
      stats.statuses.emplace_back(statuses.column_text(0), statuses.column_int64(1));
    auto& measurers = impl_->stmt(
        "SELECT host, rank, count(*), sum(status = 'ok') FROM measurements GROUP BY host, rank ORDER BY host, rank");
    measurers.reset();
    while (measurers.step()) {
      stats.measurers.push_back({measurers.column_text(0), measurers.column_optional_int64(1),
                                 measurers.column_int64(2), measurers.column_int64(3)});
    }
    return stats;
  });
}

}  // namespace ktune::tuning_db
