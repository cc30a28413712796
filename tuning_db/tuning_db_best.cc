// TuningDb's best queries: best(), top_k() and best_all(). The rule itself is in
// best_rule.cc; this file reads the candidates (one range scan of the partial index
// `measurements_ok`) and fills BestEntry rows.
#include <string>

#include "tuning_db/internal/candidates.h"
#include "tuning_db/internal/db_impl.h"
#include "tuning_db/internal/rows.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace internal {

std::vector<Candidate> ranked_candidates(TuningDb::Impl& db, int64_t workload_id,
                                         int64_t device_id) {
  // `m.status = 'ok'` must stay literal: it is what lets SQLite use the partial index.
  // Rows superseded by `ktune db revalidate` no longer count.
  auto& s = db.stmt(
      "SELECT m.id, m.schedule_id, s.hash, m.median_ns, m.spread_ns, m.created_at "
      "FROM measurements m JOIN schedules s ON s.id = m.schedule_id "
      "WHERE m.workload_id = ?1 AND m.device_id = ?2 AND m.status = 'ok' AND m.stale_at IS NULL");
  s.bind(1, workload_id).bind(2, device_id);
  std::vector<OkTiming> timings;
  while (s.step()) {
    timings.push_back({s.column_int64(0), s.column_int64(1), s.column_text(2), s.column_double(3),
                       s.column_double(4), s.column_int64(5)});
  }
  return rank_candidates(collapse_timings(timings));
}

}  // namespace internal

namespace {

bool differs(const std::string& stored, const std::string& current) {
  return !current.empty() && stored != current;
}

// Fills the BestEntry of `candidate`.
BestEntry make_entry(TuningDb::Impl& db, const WorkloadRecord& workload, const DeviceRecord& device,
                     const Candidate& candidate, int64_t candidates) {
  BestEntry entry;
  entry.workload_key = workload.key;
  entry.workload_name = workload.name;
  entry.device_key = device.key;
  entry.schedule_id = candidate.schedule_id;
  entry.schedule_hash = candidate.schedule_hash;
  entry.candidates = candidates;

  static const std::string measurement_sql =
      std::string("SELECT ") + internal::kMeasurementColumns + " FROM measurements WHERE id = ?1";
  auto& m = db.stmt(measurement_sql.c_str()).bind(1, candidate.measurement_id);
  if (m.step()) entry.measurement = internal::read_measurement(m);
  m.reset();
  auto& json = db.stmt("SELECT json FROM schedules WHERE id = ?1").bind(1, candidate.schedule_id);
  if (json.step()) entry.schedule_json = json.column_text(0);
  json.reset();

  entry.stale = differs(entry.measurement.ktune_version, db.versions.ktune) ||
                differs(entry.measurement.halide_version, db.versions.halide);
  return entry;
}

std::optional<WorkloadRecord> workload_by_key(TuningDb::Impl& db, const std::string& key) {
  static const std::string sql =
      std::string("SELECT ") + internal::kWorkloadColumns + " FROM workloads WHERE key = ?1";
  auto& s = db.stmt(sql.c_str()).bind(1, key);
  if (!s.step()) return std::nullopt;
  WorkloadRecord workload = internal::read_workload(s);
  s.reset();
  return workload;
}

}  // namespace

std::vector<BestEntry> TuningDb::top_k(const std::string& workload_key,
                                       const std::string& device_key, int k) {
  return impl_->read([&] {
    std::vector<BestEntry> out;
    const auto workload = workload_by_key(*impl_, workload_key);
    const auto device = find_device(device_key);
    if (!workload || !device || k <= 0) return out;
    const auto ranked = internal::ranked_candidates(*impl_, workload->id, device->id);
    const auto total = static_cast<int64_t>(ranked.size());
    for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < k; ++i) {
      out.push_back(make_entry(*impl_, *workload, *device, ranked[i], total));
    }
    return out;
  });
}

std::optional<BestEntry> TuningDb::best(const std::string& workload_key,
                                        const std::string& device_key) {
  auto entries = top_k(workload_key, device_key, 1);
  if (entries.empty()) return std::nullopt;
  return std::move(entries.front());
}

std::vector<BestEntry> TuningDb::best_all() {
  return impl_->read([&] {
    std::vector<BestEntry> out;
    const std::vector<DeviceRecord> all_devices = devices();
    static const std::string sql =
        std::string("SELECT ") + internal::kWorkloadColumns + " FROM workloads ORDER BY name, key";
    auto& s = impl_->stmt(sql.c_str());
    s.reset();
    std::vector<WorkloadRecord> workloads;
    while (s.step()) workloads.push_back(internal::read_workload(s));
    for (const WorkloadRecord& workload : workloads) {
      for (const DeviceRecord& device : all_devices) {
        const auto ranked = internal::ranked_candidates(*impl_, workload.id, device.id);
        if (ranked.empty()) continue;
        out.push_back(make_entry(*impl_, workload, device, ranked.front(),
                                 static_cast<int64_t>(ranked.size())));
      }
    }
    return out;
  });
}

}  // namespace ktune::tuning_db
