// Reading and writing single rows of the tuning database, without transactions: the
// building blocks that TuningDb's public methods wrap in a WriteTransaction, and that merge
// and import run many times inside one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tuning_db/internal/db_impl.h"
#include "tuning_db/records.h"

namespace ktune::tuning_db::internal {

// Column lists for SELECTs whose rows the read_* functions below decode (column 0 first).
inline constexpr const char* kDeviceColumns = "id, key, target, description, created_at";
inline constexpr const char* kWorkloadColumns =
    "id, key, name, family_key, shapes, spec, flops, bytes, created_at";
inline constexpr const char* kRunColumns =
    "id, uuid, started_at, ended_at, command, host, budget, status, ktune_version, "
    "halide_version, pid";
inline constexpr const char* kMeasurementColumns =
    "id, uuid, schedule_id, workload_id, device_id, run_id, status, median_ns, min_ns, "
    "spread_ns, repeats, threads, build_ms, predicted, error, created_at, halide_version, "
    "ktune_version, stale_at, host, rank";
// How many columns kMeasurementColumns lists: where a query's own columns after them start.
inline constexpr int kMeasurementColumnCount = 21;

inline constexpr const char* kModelColumns =
    "id, uuid, device_id, kind, feature_version, blob, samples, metrics, created_at";

// The number of names in a column list.
constexpr int column_count(const char* columns) {
  int n = 1;
  for (; *columns != '\0'; ++columns) n += *columns == ',';
  return n;
}
static_assert(column_count(kMeasurementColumns) == kMeasurementColumnCount, "update kMeasurementColumnCount");

// `columns` (one of the lists above) with every name prefixed by `alias`, e.g. "m.".
std::string prefixed(const char* columns, const std::string& alias);

DeviceRecord read_device(const sqlite::Statement& s);
WorkloadRecord read_workload(const sqlite::Statement& s);
RunRecord read_run(const sqlite::Statement& s);
MeasurementRecord read_measurement(const sqlite::Statement& s);
ModelRecord read_model(const sqlite::Statement& s);

// Row ids by identity; nullopt when absent.
std::optional<int64_t> device_id(TuningDb::Impl& db, const std::string& key);
std::optional<int64_t> workload_id(TuningDb::Impl& db, const std::string& key);
std::optional<int64_t> schedule_id(TuningDb::Impl& db, int64_t workload_id,
                                   const std::string& hash);

// Insert-if-new by identity; each returns the row id and whether it inserted. Rows are stored
// as given (versions included), except that an empty uuid is generated and a created_at of 0
// becomes now. Ids inside the records (workload_id, device_id, ...) must be local ones.
std::pair<int64_t, bool> put_device(TuningDb::Impl& db, const DeviceRecord& device);
std::pair<int64_t, bool> put_workload(TuningDb::Impl& db, const WorkloadRecord& workload);
std::pair<int64_t, bool> put_schedule(TuningDb::Impl& db, const ScheduleRecord& schedule);
std::pair<int64_t, bool> put_run(TuningDb::Impl& db, const RunRecord& run);
std::pair<int64_t, bool> put_measurement(TuningDb::Impl& db, const MeasurementRecord& m);
std::pair<int64_t, bool> put_model(TuningDb::Impl& db, const ModelRecord& model);

}  // namespace ktune::tuning_db::internal
