#include "tuning_db/internal/rows.h"

#include <stdexcept>

#include "tuning_db/internal/clock.h"
#include "tuning_db/internal/uuid.h"

namespace ktune::tuning_db::internal {
namespace {

int64_t or_now(int64_t ms) { return ms != 0 ? ms : now_unix_ms(); }

// Reads a stored status; the schema's CHECK constraints make anything else impossible.
MeasureStatus measure_status_of(const std::string& text) {
  auto status = parse_measure_status(text);
  if (!status) throw std::runtime_error("unknown measurement status '" + text + "' in database");
  return *status;
}

RunStatus run_status_of(const std::string& text) {
  auto status = parse_run_status(text);
  if (!status) throw std::runtime_error("unknown run status '" + text + "' in database");
  return *status;
}

// The id in column 0 of the first row of `s`, or nullopt.
std::optional<int64_t> first_id(sqlite::Statement& s) {
  if (!s.step()) return std::nullopt;
  const int64_t id = s.column_int64(0);
  s.reset();
  return id;
}

}  // namespace

std::string prefixed(const char* columns, const std::string& alias) {
  std::string out = alias;
  for (const char* c = columns; *c != '\0'; ++c) {
    out += *c;
    if (*c == ' ') out += alias;
  }
  return out;
}

DeviceRecord read_device(const sqlite::Statement& s) {
  DeviceRecord r;
  r.id = s.column_int64(0);
  r.key = s.column_text(1);
  r.target = s.column_text(2);
  r.description = s.column_text(3);
  r.created_at_ms = s.column_int64(4);
  return r;
}

WorkloadRecord read_workload(const sqlite::Statement& s) {
  WorkloadRecord r;
  r.id = s.column_int64(0);
  r.key = s.column_text(1);
  r.name = s.column_text(2);
  r.family_key = s.column_text(3);
  r.shapes = s.column_text(4);
  r.spec = s.column_text(5);
  r.flops = s.column_int64(6);
  r.bytes = s.column_int64(7);
  r.created_at_ms = s.column_int64(8);
  return r;
}

RunRecord read_run(const sqlite::Statement& s) {
  RunRecord r;
  r.id = s.column_int64(0);
  r.uuid = s.column_text(1);
  r.started_at_ms = s.column_int64(2);
  r.ended_at_ms = s.column_optional_int64(3);
  r.command = s.column_text(4);
  r.host = s.column_text(5);
  r.budget = s.column_text(6);
  r.status = run_status_of(s.column_text(7));
  r.ktune_version = s.column_text(8);
  r.halide_version = s.column_text(9);
  r.pid = s.column_optional_int64(10);
  return r;
}

MeasurementRecord read_measurement(const sqlite::Statement& s) {
  MeasurementRecord r;
  r.id = s.column_int64(0);
  r.uuid = s.column_text(1);
  r.schedule_id = s.column_int64(2);
  r.workload_id = s.column_int64(3);
  r.device_id = s.column_int64(4);
  r.run_id = s.column_optional_int64(5);
  r.status = measure_status_of(s.column_text(6));
  r.median_ns = s.column_optional_double(7);
  r.min_ns = s.column_optional_double(8);
  r.spread_ns = s.column_optional_double(9);
  r.repeats = s.column_int64(10);
  r.threads = s.column_int64(11);
  r.build_ms = s.column_optional_double(12);
  r.predicted = s.column_optional_double(13);
  r.error = s.column_text(14);
  r.created_at_ms = s.column_int64(15);
  r.halide_version = s.column_text(16);
  r.ktune_version = s.column_text(17);
  r.stale_at_ms = s.column_optional_int64(18);
  r.host = s.column_text(19);
  r.rank = s.column_optional_int64(20);
  return r;
}

ModelRecord read_model(const sqlite::Statement& s) {
  ModelRecord r;
  r.id = s.column_int64(0);
  r.uuid = s.column_text(1);
  r.device_id = s.column_int64(2);
  r.kind = s.column_text(3);
  r.feature_version = static_cast<int>(s.column_int64(4));
  r.blob = s.column_blob(5);
  r.samples = s.column_int64(6);
  r.metrics = s.column_text(7);
  r.created_at_ms = s.column_int64(8);
  return r;
}

std::optional<int64_t> device_id(TuningDb::Impl& db, const std::string& key) {
  return first_id(db.stmt("SELECT id FROM devices WHERE key = ?1").bind(1, key));
}

std::optional<int64_t> workload_id(TuningDb::Impl& db, const std::string& key) {
  return first_id(db.stmt("SELECT id FROM workloads WHERE key = ?1").bind(1, key));
}

std::optional<int64_t> schedule_id(TuningDb::Impl& db, int64_t workload_id,
                                   const std::string& hash) {
  auto& find = db.stmt("SELECT id FROM schedules WHERE workload_id = ?1 AND hash = ?2");
  return first_id(find.bind(1, workload_id).bind(2, hash));
}

std::pair<int64_t, bool> put_device(TuningDb::Impl& db, const DeviceRecord& device) {
  if (auto id = device_id(db, device.key)) return {*id, false};
  auto& insert = db.stmt(
      "INSERT INTO devices(key, target, description, created_at) VALUES (?1, ?2, ?3, ?4) "
      "RETURNING id");
  insert.bind(1, device.key).bind(2, device.target).bind(3, device.description);
  insert.bind(4, or_now(device.created_at_ms));
  return {*first_id(insert), true};
}

std::pair<int64_t, bool> put_workload(TuningDb::Impl& db, const WorkloadRecord& w) {
  if (auto id = workload_id(db, w.key)) return {*id, false};
  auto& insert = db.stmt(
      "INSERT INTO workloads(key, name, family_key, shapes, spec, flops, bytes, created_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id");
  insert.bind(1, w.key).bind(2, w.name).bind(3, w.family_key).bind(4, w.shapes);
  insert.bind(5, w.spec).bind(6, w.flops).bind(7, w.bytes).bind(8, or_now(w.created_at_ms));
  return {*first_id(insert), true};
}

std::pair<int64_t, bool> put_schedule(TuningDb::Impl& db, const ScheduleRecord& s) {
  if (auto id = schedule_id(db, s.workload_id, s.hash)) return {*id, false};
  auto& insert = db.stmt(
      "INSERT INTO schedules(workload_id, hash, json, created_at) VALUES (?1, ?2, ?3, ?4) "
      "RETURNING id");
  insert.bind(1, s.workload_id).bind(2, s.hash).bind(3, s.json);
  insert.bind(4, or_now(s.created_at_ms));
  return {*first_id(insert), true};
}

std::pair<int64_t, bool> put_run(TuningDb::Impl& db, const RunRecord& r) {
  const std::string uuid = r.uuid.empty() ? new_uuid() : r.uuid;
  if (auto id = first_id(db.stmt("SELECT id FROM runs WHERE uuid = ?1").bind(1, uuid))) {
    return {*id, false};
  }
  auto& insert = db.stmt(
      "INSERT INTO runs(uuid, started_at, ended_at, command, host, budget, status, "
      "ktune_version, halide_version, pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
      "RETURNING id");
  insert.bind(1, uuid).bind(2, or_now(r.started_at_ms)).bind(3, r.ended_at_ms);
  insert.bind(4, r.command).bind(5, r.host).bind(6, r.budget).bind(7, to_string(r.status));
  insert.bind(8, r.ktune_version).bind(9, r.halide_version).bind(10, r.pid);
  return {*first_id(insert), true};
}

std::pair<int64_t, bool> put_measurement(TuningDb::Impl& db, const MeasurementRecord& m) {
  auto& schedule = db.stmt("SELECT workload_id FROM schedules WHERE id = ?1");
  const auto workload = first_id(schedule.bind(1, m.schedule_id));
  if (!workload) {
    throw std::invalid_argument(db.conn.path() + ": measurement refers to schedule id " +
                                std::to_string(m.schedule_id) + ", which is not stored");
  }
  auto& insert = db.stmt(
      "INSERT INTO measurements(uuid, schedule_id, workload_id, device_id, run_id, status, "
      "median_ns, min_ns, spread_ns, repeats, threads, build_ms, predicted, error, created_at, "
      "halide_version, ktune_version, stale_at, host, rank) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
      "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20) ON CONFLICT(uuid) DO NOTHING RETURNING id");
  insert.bind(1, m.uuid.empty() ? new_uuid() : m.uuid).bind(2, m.schedule_id);
  insert.bind(3, *workload).bind(4, m.device_id).bind(5, m.run_id);
  insert.bind(6, to_string(m.status)).bind(7, m.median_ns).bind(8, m.min_ns);
  insert.bind(9, m.spread_ns).bind(10, m.repeats).bind(11, m.threads).bind(12, m.build_ms);
  insert.bind(13, m.predicted).bind(14, m.error).bind(15, or_now(m.created_at_ms));
  insert.bind(16, m.halide_version).bind(17, m.ktune_version).bind(18, m.stale_at_ms);
  insert.bind(19, m.host).bind(20, m.rank);
  if (auto id = first_id(insert)) return {*id, true};
  // The uuid is already stored: the same measurement, seen again through a merge or import.
  return {*first_id(db.stmt("SELECT id FROM measurements WHERE uuid = ?1").bind(1, m.uuid)), false};
}

std::pair<int64_t, bool> put_model(TuningDb::Impl& db, const ModelRecord& m) {
  const std::string uuid = m.uuid.empty() ? new_uuid() : m.uuid;
  if (auto id = first_id(db.stmt("SELECT id FROM models WHERE uuid = ?1").bind(1, uuid))) {
    return {*id, false};
  }
  auto& insert = db.stmt(
      "INSERT INTO models(uuid, device_id, kind, feature_version, blob, samples, metrics, "
      "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id");
  insert.bind(1, uuid).bind(2, m.device_id).bind(3, m.kind).bind(4, m.feature_version);
  insert.bind_blob(5, m.blob).bind(6, m.samples).bind(7, m.metrics);
  insert.bind(8, or_now(m.created_at_ms));
  return {*first_id(insert), true};
}

}  // namespace ktune::tuning_db::internal
