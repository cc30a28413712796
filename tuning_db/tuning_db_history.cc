// TuningDb's history queries: the read-only views of everything measured that reports draw
// from (which workload and device pairs have measurements, and every measurement of one pair
// in the order it was recorded), as opposed to tuning_db_best.cc's single answer per pair.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tuning_db/internal/db_impl.h"
#include "tuning_db/internal/rows.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {

std::vector<MeasuredPair> TuningDb::measured_pairs() {
  return impl_->read([&] {
    std::map<int64_t, DeviceRecord> devices_by_id;
    for (DeviceRecord& device : devices()) devices_by_id.emplace(device.id, std::move(device));
    static const std::string sql =
        std::string("SELECT ") + internal::prefixed(internal::kWorkloadColumns, "w.") +
        ", c.device_id, c.n FROM (SELECT workload_id, device_id, COUNT(*) AS n FROM measurements "
        "GROUP BY workload_id, device_id) c JOIN workloads w ON w.id = c.workload_id "
        "ORDER BY w.name, w.key, c.device_id";
    auto& s = impl_->stmt(sql.c_str());
    s.reset();
    std::vector<MeasuredPair> out;
    while (s.step()) {
      MeasuredPair pair;
      pair.workload = internal::read_workload(s);
      pair.device = devices_by_id.at(s.column_int64(9));
      pair.measurements = s.column_int64(10);
      out.push_back(std::move(pair));
    }
    std::stable_sort(out.begin(), out.end(), [](const MeasuredPair& a, const MeasuredPair& b) {
      return std::tie(a.workload.name, a.workload.key, a.device.key) <
             std::tie(b.workload.name, b.workload.key, b.device.key);
    });
    return out;
  });
}

std::vector<MeasurementRecord> TuningDb::measurement_history(const std::string& workload_key,
                                                             const std::string& device_key) {
  return impl_->read([&] {
    static const std::string sql =
        std::string("SELECT ") + internal::prefixed(internal::kMeasurementColumns, "m.") +
        " FROM measurements m JOIN workloads w ON w.id = m.workload_id "
        "JOIN devices d ON d.id = m.device_id WHERE w.key = ?1 AND d.key = ?2 "
        "ORDER BY m.created_at, m.id";
    auto& s = impl_->stmt(sql.c_str()).bind(1, workload_key).bind(2, device_key);
    std::vector<MeasurementRecord> out;
    while (s.step()) out.push_back(internal::read_measurement(s));
    return out;
  });
}

}  // namespace ktune::tuning_db
