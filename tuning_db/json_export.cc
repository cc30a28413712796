// TuningDb::export_json: every row except the cost models (binary blobs) as indented JSON,
// sorted by identity (devices by key, runs by start, workloads by key, schedules by hash,
// measurements by device, time and uuid, bench results by time, bench, workload and method), so two exports of the same data are byte-identical
// and diff well.
// Ids never appear: rows refer to each other by key, hash and uuid. Workloads are written one
// at a time, so a large database does not have to fit in memory as JSON.
#include <nlohmann/json.hpp>

#include <ostream>

#include "tuning_db/internal/bench_rows.h"
#include "tuning_db/internal/clock.h"
#include "tuning_db/internal/db_impl.h"
#include "tuning_db/internal/json_format.h"
#include "tuning_db/internal/rows.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using Json = nlohmann::ordered_json;

// Stored JSON text as a value (ordered_json keeps its member order).
Json embedded(const std::string& text) { return Json::parse(text); }

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

// `json` dumped with 2-space indentation, every line after the first shifted by `indent`.
std::string dump_at(const Json& json, int indent) {
  const std::string text = json.dump(2);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(static_cast<size_t>(indent), ' ');
  }
  return out;
}

Json device_json(const DeviceRecord& d) {
  return Json{{"key", d.key},
              {"target", d.target},
              {"description", embedded(d.description)},
              {"created_at", internal::format_iso8601(d.created_at_ms)}};
}

Json run_json(const RunRecord& r) {
  return Json{
      {"uuid", r.uuid},
      {"started_at", internal::format_iso8601(r.started_at_ms)},
      {"ended_at", r.ended_at_ms ? Json(internal::format_iso8601(*r.ended_at_ms)) : Json(nullptr)},
      {"command", embedded(r.command)},
      {"host", r.host},
      {"budget", r.budget},
      {"status", std::string(to_string(r.status))},
      {"ktune_version", r.ktune_version},
      {"halide_version", r.halide_version},
      {"pid", r.pid ? Json(*r.pid) : Json(nullptr)}};
}

Json measurement_json(const MeasurementRecord& m, const std::string& device_key,
                      const std::optional<std::string>& run_uuid) {
  Json j{{"uuid", m.uuid},
         {"device", device_key},
         {"run", run_uuid ? Json(*run_uuid) : Json(nullptr)},
         {"status", std::string(to_string(m.status))},
         {"median_ns", optional_number(m.median_ns)},
         {"min_ns", optional_number(m.min_ns)},
         {"spread_ns", optional_number(m.spread_ns)},
         {"repeats", m.repeats},
         {"threads", m.threads},
         {"build_ms", optional_number(m.build_ms)},
         {"predicted", optional_number(m.predicted)},
         {"error", m.error},
         {"created_at", internal::format_iso8601(m.created_at_ms)},
         {"halide_version", m.halide_version},
         {"ktune_version", m.ktune_version}};
  // Only superseded rows carry the field, so exports of other rows read as before.
  if (m.stale_at_ms) j["stale_at"] = internal::format_iso8601(*m.stale_at_ms);
  // Who timed it, where known (schema 5 on): the host, and the rank of a distributed run.
  if (!m.host.empty()) j["host"] = m.host;
  if (m.rank) j["rank"] = *m.rank;
  return j;
}

// "runs": every run, by start and uuid.
void write_runs(TuningDb::Impl& db, std::ostream& out) {
  static const std::string run_sql =
      std::string("SELECT ") + internal::kRunColumns + " FROM runs ORDER BY started_at, uuid";
  Json runs_json = Json::array();
  for (auto& s = db.stmt(run_sql.c_str()); s.step();) {
    runs_json.push_back(run_json(internal::read_run(s)));
  }
  out << "  \"runs\": " << dump_at(runs_json, 2) << ",\n";
}

// The measurements of schedule `schedule_id`, by device key, time and uuid.
Json schedule_measurements(TuningDb::Impl& db, int64_t schedule_id) {
  static const std::string measurement_sql =
      "SELECT " + internal::prefixed(internal::kMeasurementColumns, "m.") +
      ", d.key, r.uuid FROM measurements m JOIN devices d ON d.id = m.device_id "
      "LEFT JOIN runs r ON r.id = m.run_id WHERE m.schedule_id = ?1 "
      "ORDER BY d.key, m.created_at, m.uuid";
  constexpr int kDeviceKeyColumn = internal::kMeasurementColumnCount;
  constexpr int kRunUuidColumn = internal::kMeasurementColumnCount + 1;
  Json measurements = Json::array();
  auto& ms = db.stmt(measurement_sql.c_str());
  for (ms.bind(1, schedule_id); ms.step();) {
    std::optional<std::string> run_uuid;
    if (!ms.is_null(kRunUuidColumn)) run_uuid = ms.column_text(kRunUuidColumn);
    measurements.push_back(measurement_json(internal::read_measurement(ms),
                                            ms.column_text(kDeviceKeyColumn), run_uuid));
  }
  return measurements;
}

// Workload `w` with its schedules (by hash), each with its measurements.
Json workload_json(TuningDb::Impl& db, const WorkloadRecord& w) {
  Json schedules = Json::array();
  auto& ss = db.stmt(
      "SELECT id, hash, json, created_at FROM schedules "
      "WHERE workload_id = ?1 ORDER BY hash");
  for (ss.bind(1, w.id); ss.step();) {
    Json measurements = schedule_measurements(db, ss.column_int64(0));
    schedules.push_back(Json{{"hash", ss.column_text(1)},
                             {"created_at", internal::format_iso8601(ss.column_int64(3))},
                             {"schedule", embedded(ss.column_text(2))},
                             {"measurements", std::move(measurements)}});
  }
  return Json{{"key", w.key},
              {"name", w.name},
              {"family_key", w.family_key},
              {"shapes", embedded(w.shapes)},
              {"spec", embedded(w.spec)},
              {"flops", w.flops},
              {"bytes", w.bytes},
              {"created_at", internal::format_iso8601(w.created_at_ms)},
              {"schedules", std::move(schedules)}};
}

// "workloads": one at a time, by key, so the whole database never sits in memory as JSON.
void write_workloads(TuningDb::Impl& db, std::ostream& out) {
  static const std::string workload_sql =
      std::string("SELECT ") + internal::kWorkloadColumns + " FROM workloads ORDER BY key";
  out << "  \"workloads\": [";
  bool first = true;
  for (auto& ws = db.stmt(workload_sql.c_str()); ws.step();) {
    const WorkloadRecord w = internal::read_workload(ws);
    out << (first ? "\n    " : ",\n    ") << dump_at(workload_json(db, w), 4);
    first = false;
  }
  out << (first ? "]" : "\n  ]") << ",\n";
}

// "bench_results": by time, bench, workload and method; the last member.
void write_bench_results(TuningDb::Impl& db, std::ostream& out) {
  static const std::string bench_sql =
      std::string("SELECT ") + internal::kBenchResultColumns +
      " FROM bench_results ORDER BY created_at, bench_uuid, workload_key, method";
  Json bench_json = Json::array();
  for (auto& s = db.stmt(bench_sql.c_str()); s.step();) {
    const BenchResultRecord r = internal::read_bench_result(s);
    bench_json.push_back(Json{{"bench_uuid", r.bench_uuid},
                              {"workload_key", r.workload_key},
                              {"device_key", r.device_key},
                              {"method", r.method},
                              {"status", r.status},
                              {"median_ns", r.median_ns},
                              {"min_ns", r.min_ns},
                              {"iqr_ns", r.iqr_ns},
                              {"repeats", r.repeats},
                              {"threads", r.threads},
                              {"detail", r.detail},
                              {"created_at", r.created_at}});
  }
  out << "  \"bench_results\": " << dump_at(bench_json, 2) << "\n}\n";
}

}  // namespace

void TuningDb::export_json(std::ostream& out) {
  Impl& db = *impl_;
  db.read([&] {
    out << "{\n  \"format\": \"" << internal::kJsonFormatName << "\",\n"
        << "  \"format_version\": " << internal::kJsonFormatVersion << ",\n";
    Json devices_json = Json::array();
    for (const DeviceRecord& d : devices()) devices_json.push_back(device_json(d));
    out << "  \"devices\": " << dump_at(devices_json, 2) << ",\n";
    write_runs(db, out);
    write_workloads(db, out);
    write_bench_results(db, out);
  });
}

}  // namespace ktune::tuning_db
