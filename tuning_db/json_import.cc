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

}  // namespace

CopyReport TuningDb::import_json(const std::string& text, const std::string& source) {
  // Checked first as a user's file is (bounded nesting, numbers that fit, no duplicate keys),
  // then read again in its own key order, which the rows keep.
  parse_user_json(text, source);
  const Json doc = Json::parse(text);
  const Fields f(source);
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

  sqlite::WriteTransaction tx(impl_->conn);
  internal::RowCopier copy(*impl_);
  std::unordered_map<std::string, int64_t> device_ids;  // key -> local id
  std::unordered_map<std::string, int64_t> run_ids;     // uuid -> local id

  const Json& devices = f.array(doc, "", "devices");
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string p = Fields::at("devices", i);
    DeviceRecord d;
    d.key = f.text(devices[i], p, "key", false);
    d.target = f.text(devices[i], p, "target");
    d.description = f.json_text(devices[i], p, "description");
    d.created_at_ms = f.time(devices[i], p, "created_at");
    device_ids[d.key] = copy.device(d);
  }

  const Json& runs = f.array(doc, "", "runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string p = Fields::at("runs", i);
    RunRecord r;
    r.uuid = f.text(runs[i], p, "uuid", false);
    r.started_at_ms = f.time(runs[i], p, "started_at");
    r.ended_at_ms = f.time_or_null(runs[i], p, "ended_at");
    r.command = f.json_text(runs[i], p, "command");
    r.host = f.text(runs[i], p, "host");
    r.budget = f.text(runs[i], p, "budget");
    const std::string status = f.text(runs[i], p, "status");
    auto parsed = parse_run_status(status);
    if (!parsed) {
      f.fail(Fields::at(p, "status"),
             "expected running, completed, interrupted, failed or killed, "
             "found \"" +
                 status + "\"");
    }
    r.status = *parsed;
    r.ktune_version = f.text(runs[i], p, "ktune_version");
    r.halide_version = f.text(runs[i], p, "halide_version");
    r.pid = f.count_if_given(runs[i], p, "pid");
    run_ids[r.uuid] = copy.run(r);
  }

  const Json& workloads = f.array(doc, "", "workloads");
  for (size_t i = 0; i < workloads.size(); ++i) {
    const std::string wp = Fields::at("workloads", i);
    const Json& wj = workloads[i];
    WorkloadRecord w;
    w.key = f.text(wj, wp, "key", false);
    w.name = f.text(wj, wp, "name");
    w.family_key = f.text(wj, wp, "family_key");
    w.shapes = f.json_text(wj, wp, "shapes");
    w.spec = f.json_text(wj, wp, "spec");
    w.flops = f.count(wj, wp, "flops");
    w.bytes = f.count(wj, wp, "bytes");
    w.created_at_ms = f.time(wj, wp, "created_at");
    const int64_t workload_id = copy.workload(w);

    const Json& schedules = f.array(wj, wp, "schedules");
    for (size_t j = 0; j < schedules.size(); ++j) {
      const std::string sp = Fields::at(Fields::at(wp, "schedules"), j);
      const Json& sj = schedules[j];
      ScheduleRecord s;
      s.workload_id = workload_id;
      s.hash = f.text(sj, sp, "hash", false);
      s.json = f.json_text(sj, sp, "schedule");
      s.created_at_ms = f.time(sj, sp, "created_at");
      const int64_t schedule_id = copy.schedule(s);

      const Json& measurements = f.array(sj, sp, "measurements");
      for (size_t k = 0; k < measurements.size(); ++k) {
        const std::string mp = Fields::at(Fields::at(sp, "measurements"), k);
        const Json& mj = measurements[k];
        MeasurementRecord m;
        m.uuid = f.text(mj, mp, "uuid", false);
        m.schedule_id = schedule_id;
        const std::string device = f.text(mj, mp, "device", false);
        auto d = device_ids.find(device);
        if (d == device_ids.end()) {
          f.fail(Fields::at(mp, "device"), "unknown device \"" + device + "\" (not in devices)");
        }
        m.device_id = d->second;
        if (auto run = f.text_or_null(mj, mp, "run")) {
          auto r = run_ids.find(*run);
          if (r == run_ids.end())
            f.fail(Fields::at(mp, "run"), "unknown run \"" + *run + "\" (not in runs)");
          m.run_id = r->second;
        }
        const std::string status = f.text(mj, mp, "status");
        auto parsed = parse_measure_status(status);
        if (!parsed) {
          std::string names;
          for (auto name : measure_status_names())
            names += (names.empty() ? "" : ", ") + std::string(name);
          f.fail(Fields::at(mp, "status"),
                 "expected one of " + names + ", found \"" + status + "\"");
        }
        m.status = *parsed;
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
        copy.measurement(m);
      }
    }
  }
  // Format 1 exports predate bench results.
  if (version >= 2) {
    const Json& bench = f.array(doc, "", "bench_results");
    for (size_t i = 0; i < bench.size(); ++i) {
      const std::string p = Fields::at("bench_results", i);
      const Json& bj = bench[i];
      BenchResultRecord r;
      r.bench_uuid = f.text(bj, p, "bench_uuid", false);
      r.workload_key = f.text(bj, p, "workload_key", false);
      r.device_key = f.text(bj, p, "device_key", false);
      r.method = f.text(bj, p, "method", false);
      r.status = f.text(bj, p, "status");
      const auto& names = bench_status_names();
      if (std::find(names.begin(), names.end(), r.status) == names.end()) {
        std::string expected;
        for (auto name : names) expected += (expected.empty() ? "" : ", ") + std::string(name);
        f.fail(Fields::at(p, "status"),
               "expected one of " + expected + ", found \"" + r.status + "\"");
      }
      auto number = [&](const char* key) {
        auto value = f.number_or_null(bj, p, key);
        if (!value) f.fail(Fields::at(p, key), "expected a non-negative number, found null");
        return *value;
      };
      r.median_ns = number("median_ns");
      r.min_ns = number("min_ns");
      r.iqr_ns = number("iqr_ns");
      r.repeats = static_cast<int>(f.count(bj, p, "repeats"));
      r.threads = static_cast<int>(f.count(bj, p, "threads"));
      r.detail = f.text(bj, p, "detail");
      f.time(bj, p, "created_at");  // checks the form
      r.created_at = f.text(bj, p, "created_at");
      copy.bench_result(r);
    }
  }
  tx.commit();
  return copy.report();
}

}  // namespace ktune::tuning_db
