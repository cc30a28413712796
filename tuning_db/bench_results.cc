// TuningDb's `ktune bench` results: recording one method's row and reading the newest
// invocation's rows for a workload on a device.
#include <algorithm>
#include <stdexcept>

#include "tuning_db/internal/bench_rows.h"
#include "tuning_db/internal/clock.h"
#include "tuning_db/internal/db_impl.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace internal {

BenchResultRecord read_bench_result(const sqlite::Statement& s) {
  BenchResultRecord r;
  r.bench_uuid = s.column_text(0);
  r.workload_key = s.column_text(1);
  r.device_key = s.column_text(2);
  r.method = s.column_text(3);
  r.status = s.column_text(4);
  r.median_ns = s.column_double(5);
  r.min_ns = s.column_double(6);
  r.iqr_ns = s.column_double(7);
  r.repeats = static_cast<int>(s.column_int64(8));
  r.threads = static_cast<int>(s.column_int64(9));
  r.detail = s.column_text(10);
  r.created_at = format_iso8601(s.column_int64(11));
  return r;
}

std::pair<int64_t, bool> put_bench_result(TuningDb::Impl& db, const BenchResultRecord& r) {
  const auto& statuses = bench_status_names();
  if (std::find(statuses.begin(), statuses.end(), r.status) == statuses.end()) {
    throw std::invalid_argument("bench result: unknown status \"" + r.status + "\"");
  }
  int64_t created_at = now_unix_ms();
  if (!r.created_at.empty()) {
    auto parsed = parse_iso8601(r.created_at);
    if (!parsed) {
      throw std::invalid_argument("bench result: created_at \"" + r.created_at +
                                  "\" is not a UTC time like 2024-05-01T12:00:00.000Z");
    }
    created_at = *parsed;
  }
  auto& find = db.stmt(
      "SELECT id FROM bench_results WHERE bench_uuid = ?1 AND workload_key = ?2 AND method = ?3");
  find.bind(1, r.bench_uuid).bind(2, r.workload_key).bind(3, r.method);
  if (find.step()) {
    const int64_t id = find.column_int64(0);
    find.reset();
    return {id, false};
  }
  auto& insert = db.stmt(
      "INSERT INTO bench_results(bench_uuid, workload_key, device_key, method, status, "
      "median_ns, min_ns, iqr_ns, repeats, threads, detail, created_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id");
  insert.bind(1, r.bench_uuid).bind(2, r.workload_key).bind(3, r.device_key).bind(4, r.method);
  insert.bind(5, r.status).bind(6, r.median_ns).bind(7, r.min_ns).bind(8, r.iqr_ns);
  insert.bind(9, static_cast<int64_t>(r.repeats)).bind(10, static_cast<int64_t>(r.threads));
  insert.bind(11, r.detail).bind(12, created_at);
  insert.step();
  const int64_t id = insert.column_int64(0);
  insert.reset();
  return {id, true};
}

}  // namespace internal

int64_t TuningDb::record_bench_result(const BenchResultRecord& result) {
  if (impl_->in_batch) return internal::put_bench_result(*impl_, result).first;
  sqlite::WriteTransaction tx(impl_->conn);
  const int64_t id = internal::put_bench_result(*impl_, result).first;
  tx.commit();
  return id;
}

std::vector<BenchResultRecord> TuningDb::latest_bench(const std::string& workload_key,
                                                      const std::string& device_key) {
  static const std::string sql =
      std::string("SELECT ") + internal::kBenchResultColumns +
      " FROM bench_results WHERE workload_key = ?1 AND device_key = ?2 AND bench_uuid = "
      "(SELECT bench_uuid FROM bench_results WHERE workload_key = ?1 AND device_key = ?2 "
      "ORDER BY created_at DESC, id DESC LIMIT 1) ORDER BY id";
  return impl_->read([&] {
    auto& s = impl_->stmt(sql.c_str()).bind(1, workload_key).bind(2, device_key);
    std::vector<BenchResultRecord> out;
    while (s.step()) out.push_back(internal::read_bench_result(s));
    s.reset();
    return out;
  });
}

}  // namespace ktune::tuning_db
