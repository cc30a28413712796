// TuningDb::import_json: reads what export_json writes and adds its rows as merge() does,
// in one transaction, so a bad file changes nothing. Every error names the source and the
// JSON path of the field (e.g. `workloads[2].schedules[0].measurements[5].status`).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <unordered_map>

#include "common/error.h"
#include "common/user_json.h"
#include "tuning_db/internal/bench_rows.h"
#include "tuning_db/internal/clock.h"
#include "tuning_db/internal/db_impl.h"
#include "tuning_db/internal/json_format.h"
#include "tuning_db/internal/row_copier.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using Json = nlohmann::ordered_json;

// Typed, path-aware access to the members of the parsed document.
class Fields {
 public:
  explicit Fields(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw UserError(format_user_error(source_, path, message));
  }

  static std::string at(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string at(const std::string& path, size_t index) {
    return path + "[" + std::to_string(index) + "]";
  }

  const Json& member(const Json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "expected an object, found " + describe(object));
    auto it = object.find(key);
    if (it == object.end()) fail(at(path, key), "missing");
    return *it;
  }

  const Json& array(const Json& object, const std::string& path, const char* key) const {
    const Json& value = member(object, path, key);
    if (!value.is_array()) fail(at(path, key), "expected an array, found " + describe(value));
    return value;
  }

  std::string text(const Json& object, const std::string& path, const char* key,
                   bool allow_empty = true) const {
    const Json& value = member(object, path, key);
    if (!value.is_string()) fail(at(path, key), "expected a string, found " + describe(value));
    if (!allow_empty && value.get_ref<const std::string&>().empty()) {
      fail(at(path, key), "expected a non-empty string");
    }
    return value.get<std::string>();
  }

  std::optional<std::string> text_or_null(const Json& object, const std::string& path,
                                          const char* key) const {
    if (member(object, path, key).is_null()) return std::nullopt;
    return text(object, path, key, false);
  }

  int64_t count(const Json& object, const std::string& path, const char* key) const {
    const Json& value = member(object, path, key);
    if (!value.is_number_integer() || value.get<int64_t>() < 0) {
      fail(at(path, key), "expected a non-negative integer, found " + describe(value));
    }
    return value.get<int64_t>();
  }

  // A non-negative integer that older exports leave out: absent or null is nullopt.
  std::optional<int64_t> count_if_given(const Json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "expected an object, found " + describe(object));
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return std::nullopt;
    return count(object, path, key);
  }

  std::optional<double> number_or_null(const Json& object, const std::string& path, const char* key,
                                       bool non_negative = true) const {
    const Json& value = member(object, path, key);
    if (value.is_null()) return std::nullopt;
    if (!value.is_number() || (non_negative && value.get<double>() < 0)) {
      fail(at(path, key), std::string("expected a ") + (non_negative ? "non-negative " : "") +
                              "number or null, found " + describe(value));
    }
    return value.get<double>();
  }

  int64_t time(const Json& object, const std::string& path, const char* key) const {
    const std::string value = text(object, path, key);
    auto ms = internal::parse_iso8601(value);
    if (!ms) {
      fail(at(path, key),
           "expected a UTC time like \"2024-05-01T12:00:00.000Z\", found \"" + value + "\"");
    }
    return *ms;
  }

  // A time that older exports leave out: absent or null is nullopt.
  std::optional<int64_t> time_if_given(const Json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "expected an object, found " + describe(object));
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return std::nullopt;
    return time(object, path, key);
  }

  std::optional<int64_t> time_or_null(const Json& object, const std::string& path,
                                      const char* key) const {
    if (member(object, path, key).is_null()) return std::nullopt;
    return time(object, path, key);
  }

  // A JSON value stored as text in the database.
  std::string json_text(const Json& object, const std::string& path, const char* key) const {
    return member(object, path, key).dump();
  }

  static std::string describe(const Json& value) {
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(value.type_name()) + " " + text;
  }

 private:
  const std::string& source_;  // file name for messages
};

using IdMap = std::unordered_map<std::string, int64_t>;  // key or uuid in the export -> local id

// Local ids of the rows that measurements refer to, by the key or uuid the export names them with.
struct LocalIds {
  IdMap devices;  // device key -> local id
  IdMap runs;     // run uuid -> local id
};

// "a, b, c": the names a status message offers.
std::string comma_list(const std::vector<std::string_view>& names) {
  std::string list;
  for (auto name : names) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

// Checks that `doc` is a ktune export this ktune can read; returns its format version.
int64_t check_format(const Fields& f, const Json& doc) {
  if (f.text(doc, "", "format") != internal::kJsonFormatName) {
    f.fail("format", std::string("expected \"") + internal::kJsonFormatName +
                         "\": this is not a ktune tuning database export");
  }
  const int64_t version = f.count(doc, "", "format_version");
  if (version > internal::kJsonFormatVersion) {
    f.fail("format_version", "made by a newer ktune (format " + std::to_string(version) +
                                 ", this ktune reads up to " +
                                 std::to_string(internal::kJsonFormatVersion) + ")");
  }
  return version;
}

// The device at path `p`.
DeviceRecord read_device(const Fields& f, const Json& dj, const std::string& p) {
  DeviceRecord d;
  d.key = f.text(dj, p, "key", false);
  d.target = f.text(dj, p, "target");
  d.description = f.json_text(dj, p, "description");
  d.created_at_ms = f.time(dj, p, "created_at");
  return d;
}

// Copies the devices table; returns the local id of each device by key.
IdMap import_devices(const Fields& f, const Json& doc, internal::RowCopier& copy) {
  IdMap device_ids;
  const Json& devices = f.array(doc, "", "devices");
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceRecord d = read_device(f, devices[i], Fields::at("devices", i));
    device_ids[d.key] = copy.device(d);
  }
  return device_ids;
}

// The status of the run at path `p`, which must be one a run can have.
RunStatus read_run_status(const Fields& f, const Json& rj, const std::string& p) {
  const std::string status = f.text(rj, p, "status");
  auto parsed = parse_run_status(status);
  if (!parsed) {
    f.fail(Fields::at(p, "status"),
           "expected running, completed, interrupted, failed or killed, found \"" + status + "\"");
  }
  return *parsed;
}

// The run at path `p`.
RunRecord read_run(const Fields& f, const Json& rj, const std::string& p) {
  RunRecord r;
  r.uuid = f.text(rj, p, "uuid", false);
  r.started_at_ms = f.time(rj, p, "started_at");
  r.ended_at_ms = f.time_or_null(rj, p, "ended_at");
  r.command = f.json_text(rj, p, "command");
  r.host = f.text(rj, p, "host");
  r.budget = f.text(rj, p, "budget");
  r.status = read_run_status(f, rj, p);
  r.ktune_version = f.text(rj, p, "ktune_version");
  r.halide_version = f.text(rj, p, "halide_version");
  r.pid = f.count_if_given(rj, p, "pid");
  return r;
}

// Copies the runs table; returns the local id of each run by uuid.
IdMap import_runs(const Fields& f, const Json& doc, internal::RowCopier& copy) {
  IdMap run_ids;
  const Json& runs = f.array(doc, "", "runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord r = read_run(f, runs[i], Fields::at("runs", i));
    run_ids[r.uuid] = copy.run(r);
  }
  return run_ids;
}

// The local id of the row the export names `name`; fails at `path` when `table` did not list it.
int64_t local_id(const Fields& f, const IdMap& ids, const std::string& name, const std::string& path,
                 const std::string& what, const std::string& table) {
  auto it = ids.find(name);
  if (it == ids.end()) f.fail(path, "unknown " + what + " \"" + name + "\" (not in " + table + ")");
  return it->second;
}

// The status of the measurement at path `mp`, which must be one of measure_status_names().
MeasureStatus read_measure_status(const Fields& f, const Json& mj, const std::string& mp) {
  const std::string status = f.text(mj, mp, "status");
  auto parsed = parse_measure_status(status);
  if (!parsed) {
    f.fail(Fields::at(mp, "status"),
           "expected one of " + comma_list(measure_status_names()) + ", found \"" + status + "\"");
  }
  return *parsed;
}

// The measurement at path `mp` of local schedule `schedule_id`, its device and run as local ids.
MeasurementRecord read_measurement(const Fields& f, const Json& mj, const std::string& mp, int64_t schedule_id,
                                   const LocalIds& ids) {
  MeasurementRecord m;
  m.uuid = f.text(mj, mp, "uuid", false);
  m.schedule_id = schedule_id;
  const std::string device = f.text(mj, mp, "device", false);
  m.device_id = local_id(f, ids.devices, device, Fields::at(mp, "device"), "device", "devices");
  if (auto run = f.text_or_null(mj, mp, "run")) {
    m.run_id = local_id(f, ids.runs, *run, Fields::at(mp, "run"), "run", "runs");
  }
  m.status = read_measure_status(f, mj, mp);
  m.median_ns = f.number_or_null(mj, mp, "median_ns");
  m.min_ns = f.number_or_null(mj, mp, "min_ns");
  m.spread_ns = f.number_or_null(mj, mp, "spread_ns");
  if (m.status == MeasureStatus::kOk && (!m.median_ns || !m.spread_ns)) {
    f.fail(Fields::at(mp, m.median_ns ? "spread_ns" : "median_ns"),
           "expected a number for an ok measurement, found null");
  }
  m.repeats = f.count(mj, mp, "repeats");
  m.threads = f.count(mj, mp, "threads");
  m.build_ms = f.number_or_null(mj, mp, "build_ms");
  m.predicted = f.number_or_null(mj, mp, "predicted", /*non_negative=*/false);
  m.error = f.text(mj, mp, "error");
  m.created_at_ms = f.time(mj, mp, "created_at");
  m.halide_version = f.text(mj, mp, "halide_version");
  m.ktune_version = f.text(mj, mp, "ktune_version");
  m.stale_at_ms = f.time_if_given(mj, mp, "stale_at");
  if (mj.contains("host")) m.host = f.text(mj, mp, "host");
  m.rank = f.count_if_given(mj, mp, "rank");
  return m;
}

// Copies the measurements of the schedule at path `sp`, whose local id is `schedule_id`.
void import_measurements(const Fields& f, const Json& sj, const std::string& sp, int64_t schedule_id,
                         const LocalIds& ids, internal::RowCopier& copy) {
  const Json& measurements = f.array(sj, sp, "measurements");
  for (size_t k = 0; k < measurements.size(); ++k) {
    const std::string mp = Fields::at(Fields::at(sp, "measurements"), k);
    copy.measurement(read_measurement(f, measurements[k], mp, schedule_id, ids));
  }
}

// The schedule at path `sp` of local workload `workload_id`, without its measurements.
ScheduleRecord read_schedule(const Fields& f, const Json& sj, const std::string& sp, int64_t workload_id) {
  ScheduleRecord s;
  s.workload_id = workload_id;
  s.hash = f.text(sj, sp, "hash", false);
  s.json = f.json_text(sj, sp, "schedule");
  s.created_at_ms = f.time(sj, sp, "created_at");
  return s;
}

// Copies the schedules of the workload at path `wp` (local id `workload_id`), each with its measurements.
void import_schedules(const Fields& f, const Json& wj, const std::string& wp, int64_t workload_id,
                      const LocalIds& ids, internal::RowCopier& copy) {
  const Json& schedules = f.array(wj, wp, "schedules");
  for (size_t j = 0; j < schedules.size(); ++j) {
    const std::string sp = Fields::at(Fields::at(wp, "schedules"), j);
    const int64_t schedule_id = copy.schedule(read_schedule(f, schedules[j], sp, workload_id));
    import_measurements(f, schedules[j], sp, schedule_id, ids, copy);
  }
}

// The workload at path `wp`, without its schedules.
WorkloadRecord read_workload(const Fields& f, const Json& wj, const std::string& wp) {
  WorkloadRecord w;
  w.key = f.text(wj, wp, "key", false);
  w.name = f.text(wj, wp, "name");
  w.family_key = f.text(wj, wp, "family_key");
  w.shapes = f.json_text(wj, wp, "shapes");
  w.spec = f.json_text(wj, wp, "spec");
  w.flops = f.count(wj, wp, "flops");
  w.bytes = f.count(wj, wp, "bytes");
  w.created_at_ms = f.time(wj, wp, "created_at");
  return w;
}

// Copies the workloads table, each workload followed by its schedules and their measurements.
void import_workloads(const Fields& f, const Json& doc, const LocalIds& ids, internal::RowCopier& copy) {
  const Json& workloads = f.array(doc, "", "workloads");
  for (size_t i = 0; i < workloads.size(); ++i) {
    const std::string wp = Fields::at("workloads", i);
    const int64_t workload_id = copy.workload(read_workload(f, workloads[i], wp));
    import_schedules(f, workloads[i], wp, workload_id, ids, copy);
  }
}

// The status of the bench result at path `p`, which must be one of bench_status_names().
std::string read_bench_status(const Fields& f, const Json& bj, const std::string& p) {
  std::string status = f.text(bj, p, "status");
  const auto& names = bench_status_names();
  if (std::find(names.begin(), names.end(), status) == names.end()) {
    f.fail(Fields::at(p, "status"), "expected one of " + comma_list(names) + ", found \"" + status + "\"");
  }
  return status;
}

// A bench result's timing: unlike a measurement's, never null.
double read_bench_time(const Fields& f, const Json& bj, const std::string& p, const char* key) {
  auto value = f.number_or_null(bj, p, key);
  if (!value) f.fail(Fields::at(p, key), "expected a non-negative number, found null");
  return *value;
}

// The bench result at path `p`.
BenchResultRecord read_bench_result(const Fields& f, const Json& bj, const std::string& p) {
  BenchResultRecord r;
  r.bench_uuid = f.text(bj, p, "bench_uuid", false);
  r.workload_key = f.text(bj, p, "workload_key", false);
  r.device_key = f.text(bj, p, "device_key", false);
  r.method = f.text(bj, p, "method", false);
  r.status = read_bench_status(f, bj, p);
  r.median_ns = read_bench_time(f, bj, p, "median_ns");
  r.min_ns = read_bench_time(f, bj, p, "min_ns");
  r.iqr_ns = read_bench_time(f, bj, p, "iqr_ns");
  r.repeats = static_cast<int>(f.count(bj, p, "repeats"));
  r.threads = static_cast<int>(f.count(bj, p, "threads"));
  r.detail = f.text(bj, p, "detail");
  f.time(bj, p, "created_at");  // checks the form
  r.created_at = f.text(bj, p, "created_at");
  return r;
}

// Copies the bench results table.
void import_bench_results(const Fields& f, const Json& doc, internal::RowCopier& copy) {
  const Json& bench = f.array(doc, "", "bench_results");
  for (size_t i = 0; i < bench.size(); ++i) {
    copy.bench_result(read_bench_result(f, bench[i], Fields::at("bench_results", i)));
  }
}

}  // namespace

CopyReport TuningDb::import_json(const std::string& text, const std::string& source) {
  // Checked first as a user's file is (bounded nesting, numbers that fit, no duplicate keys),
  // then read again in its own key order, which the rows keep.
  parse_user_json(text, source);
  const Json doc = Json::parse(text);
  const Fields f(source);
  const int64_t version = check_format(f, doc);

  sqlite::WriteTransaction tx(impl_->conn);
  internal::RowCopier copy(*impl_);
  LocalIds ids;
  ids.devices = import_devices(f, doc, copy);
  ids.runs = import_runs(f, doc, copy);
  import_workloads(f, doc, ids, copy);
  // Format 1 exports predate bench results.
  if (version >= 2) import_bench_results(f, doc, copy);
  tx.commit();
  return copy.report();
}

}  // namespace ktune::tuning_db
