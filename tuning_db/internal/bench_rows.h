// Reading and writing rows of `bench_results` without transactions, for record_bench_result,
// latest_bench, merge and import.
#pragma once

#include <cstdint>
#include <utility>

#include "tuning_db/internal/db_impl.h"
#include "tuning_db/records.h"

namespace ktune::tuning_db::internal {

// Column list for SELECTs whose rows read_bench_result decodes (column 0 first).
inline constexpr const char* kBenchResultColumns =
    "bench_uuid, workload_key, device_key, method, status, median_ns, min_ns, iqr_ns, repeats, "
    "threads, detail, created_at";

BenchResultRecord read_bench_result(const sqlite::Statement& s);

// Insert-if-new by (bench_uuid, workload_key, method); returns the row id and whether it
// inserted. An empty created_at becomes now. Throws std::invalid_argument for an unknown
// status or a malformed created_at.
std::pair<int64_t, bool> put_bench_result(TuningDb::Impl& db, const BenchResultRecord& r);

}  // namespace ktune::tuning_db::internal
