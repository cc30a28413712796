// TuningDb's maintenance: merge() another database into this one, prune() what the best
// rule can no longer pick, and vacuum() the file.
#include <sqlite3.h>

#include <filesystem>
#include <unordered_map>

#include "common/error.h"
#include "tuning_db/internal/candidates.h"
#include "tuning_db/internal/db_impl.h"
#include "tuning_db/internal/row_copier.h"
#include "tuning_db/internal/rows.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using IdMap = std::unordered_map<int64_t, int64_t>;  // id in the other file -> local id

// The local id of `id`; the other file's foreign keys guarantee it was copied first.
int64_t local(const IdMap& map, int64_t id, const std::string& what, const std::string& path) {
  auto it = map.find(id);
  if (it == map.end()) {
    throw UserError(format_user_error(
        path, what, "refers to id " + std::to_string(id) + ", which the file does not hold"));
  }
  return it->second;
}

int64_t single_int(TuningDb::Impl& db, const char* sql) {
  auto& s = db.stmt(sql);
  s.reset();
  const int64_t value = s.step() ? s.column_int64(0) : 0;
  s.reset();
  return value;
}

int64_t file_bytes(const std::string& path) {
  int64_t total = 0;
  for (const std::string& file : {path, path + "-wal"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (!ec) total += static_cast<int64_t>(size);
  }
  return total;
}

}  // namespace

CopyReport TuningDb::merge(const std::string& other_path) {
  std::error_code ec;
  if (std::filesystem::equivalent(other_path, path(), ec)) {
    throw UserError(
        format_user_error(other_path, "", "is the database being merged into; nothing to merge"));
  }
  TuningDb other = TuningDb::open(
      other_path, {sqlite::OpenMode::kReadOnly, versions(), sqlite::kDefaultBusyTimeoutMs});
  Impl& src = *other.impl_;
  const std::string& from = other.path();

  sqlite::WriteTransaction tx(impl_->conn);
  internal::RowCopier copy(*impl_);
  src.read([&] {
    IdMap devices, runs, workloads, schedules;
    static const std::string device_sql =
        std::string("SELECT ") + internal::kDeviceColumns + " FROM devices ORDER BY id";
    for (auto& s = src.stmt(device_sql.c_str()); s.step();) {
      const DeviceRecord r = internal::read_device(s);
      devices[r.id] = copy.device(r);
    }
    static const std::string run_sql =
        std::string("SELECT ") + internal::kRunColumns + " FROM runs ORDER BY id";
    for (auto& s = src.stmt(run_sql.c_str()); s.step();) {
      const RunRecord r = internal::read_run(s);
      runs[r.id] = copy.run(r);
    }
    static const std::string workload_sql =
        std::string("SELECT ") + internal::kWorkloadColumns + " FROM workloads ORDER BY id";
    for (auto& s = src.stmt(workload_sql.c_str()); s.step();) {
      const WorkloadRecord r = internal::read_workload(s);
      workloads[r.id] = copy.workload(r);
    }
    for (auto& s = src.stmt("SELECT id, workload_id, hash, json, created_at FROM schedules "
                            "ORDER BY id");
         s.step();) {
      ScheduleRecord r{s.column_int64(0), s.column_int64(1), s.column_text(2), s.column_text(3),
                       s.column_int64(4)};
      r.workload_id = local(workloads, r.workload_id, "schedules.workload_id", from);
      schedules[r.id] = copy.schedule(r);
    }
    static const std::string measurement_sql =
        std::string("SELECT ") + internal::kMeasurementColumns + " FROM measurements ORDER BY id";
    for (auto& s = src.stmt(measurement_sql.c_str()); s.step();) {
      MeasurementRecord r = internal::read_measurement(s);
      r.schedule_id = local(schedules, r.schedule_id, "measurements.schedule_id", from);
      r.device_id = local(devices, r.device_id, "measurements.device_id", from);
      if (r.run_id) r.run_id = local(runs, *r.run_id, "measurements.run_id", from);
      copy.measurement(r);
    }
    static const std::string model_sql =
        std::string("SELECT ") + internal::kModelColumns + " FROM models ORDER BY id";
    for (auto& s = src.stmt(model_sql.c_str()); s.step();) {
      ModelRecord r = internal::read_model(s);
      r.device_id = local(devices, r.device_id, "models.device_id", from);
      copy.model(r);
    }
    static const std::string bench_sql = std::string("SELECT ") +
                                         internal::kBenchResultColumns +
                                         " FROM bench_results ORDER BY id";
    for (auto& s = src.stmt(bench_sql.c_str()); s.step();) {
      copy.bench_result(internal::read_bench_result(s));
    }
  });
  tx.commit();
  return copy.report();
}

PruneReport TuningDb::prune(int keep_n) {
  if (keep_n < 1) {
    throw UserError(format_user_error(path(), "keep",
                                      "expected at least 1 schedule to keep per "
                                      "workload and device, found " +
                                          std::to_string(keep_n)));
  }
  Impl& db = *impl_;
  PruneReport report;
  const int64_t free_before = single_int(db, "PRAGMA freelist_count");

  sqlite::WriteTransaction tx(db.conn);
  db.conn.exec(
      "CREATE TEMP TABLE prune_keep (id INTEGER PRIMARY KEY);"
      "CREATE TEMP TABLE prune_touched (schedule_id INTEGER PRIMARY KEY);");

  // Per (workload, device): the first keep_n schedules of the ranking, each with its fastest
  // and its first ok measurement (the rule dates schedules by the latter).
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (auto& s = db.stmt("SELECT DISTINCT workload_id, device_id FROM measurements "
                         "WHERE status = 'ok'");
       s.step();) {
    pairs.emplace_back(s.column_int64(0), s.column_int64(1));
  }
  sqlite::Statement keep(db.conn, "INSERT OR IGNORE INTO prune_keep(id) VALUES (?1)");
  for (const auto& [workload, device] : pairs) {
    const auto ranked = internal::ranked_candidates(db, workload, device);
    for (size_t i = 0; i < ranked.size() && i < static_cast<size_t>(keep_n); ++i) {
      keep.bind(1, ranked[i].measurement_id).run();
      keep.bind(1, ranked[i].first_measurement_id).run();
    }
  }
  // The latest failure of each failing (schedule, device), so a search never retries it.
  db.conn.exec(
      "INSERT OR IGNORE INTO prune_keep(id) SELECT id FROM ("
      "  SELECT id, row_number() OVER (PARTITION BY schedule_id, device_id "
      "                                ORDER BY created_at DESC, uuid DESC) AS rank"
      "  FROM measurements WHERE status <> 'ok') WHERE rank = 1;"
      "INSERT OR IGNORE INTO prune_touched(schedule_id) SELECT schedule_id FROM measurements"
      "  WHERE id NOT IN (SELECT id FROM prune_keep);");

  db.conn.exec("DELETE FROM measurements WHERE id NOT IN (SELECT id FROM prune_keep)");
  report.deleted.measurements = sqlite3_changes(db.conn.get());
  // Only schedules that lost their measurements here: a running session may have stored a
  // schedule it has not measured yet.
  db.conn.exec(
      "DELETE FROM schedules WHERE id IN (SELECT schedule_id FROM prune_touched) AND "
      "NOT EXISTS (SELECT 1 FROM measurements m WHERE m.schedule_id = schedules.id)");
  report.deleted.schedules = sqlite3_changes(db.conn.get());
  db.conn.exec(
      "DELETE FROM models WHERE id NOT IN (SELECT id FROM ("
      "  SELECT id, row_number() OVER (PARTITION BY device_id, kind, feature_version "
      "                                ORDER BY created_at DESC, uuid DESC) AS rank"
      "  FROM models) WHERE rank = 1)");
  report.deleted.models = sqlite3_changes(db.conn.get());
  db.conn.exec("DROP TABLE temp.prune_keep; DROP TABLE temp.prune_touched;");
  tx.commit();

  const int64_t page_size = single_int(db, "PRAGMA page_size");
  report.freed_bytes = (single_int(db, "PRAGMA freelist_count") - free_before) * page_size;
  return report;
}

int64_t TuningDb::vacuum() {
  // Fold the WAL into the file first, so that "before" and "after" both measure one file.
  impl_->conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const int64_t before = file_bytes(path());
  impl_->conn.exec("VACUUM");
  impl_->conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return before - file_bytes(path());
}

}  // namespace ktune::tuning_db
