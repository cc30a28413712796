// Counts what merge() and import_json() add: each call stores one row through the put_*
// functions of rows.h and tallies it as added or already present.
#pragma once

#include <cstdint>

#include "tuning_db/internal/bench_rows.h"
#include "tuning_db/internal/rows.h"

namespace ktune::tuning_db::internal {

class RowCopier {
 public:
  explicit RowCopier(TuningDb::Impl& db) : db_(db) {}

  // Each stores one row (ids inside it must be local) and returns its local id.
  int64_t device(const DeviceRecord& r) { return tally(put_device(db_, r), &RowCounts::devices); }
  int64_t workload(const WorkloadRecord& r) {
    return tally(put_workload(db_, r), &RowCounts::workloads);
  }
  int64_t schedule(const ScheduleRecord& r) {
    return tally(put_schedule(db_, r), &RowCounts::schedules);
  }
  int64_t run(const RunRecord& r) { return tally(put_run(db_, r), &RowCounts::runs); }
  int64_t measurement(const MeasurementRecord& r) {
    return tally(put_measurement(db_, r), &RowCounts::measurements);
  }
  int64_t model(const ModelRecord& r) { return tally(put_model(db_, r), &RowCounts::models); }
  int64_t bench_result(const BenchResultRecord& r) {
    return tally(put_bench_result(db_, r), &RowCounts::bench_results);
  }

  const CopyReport& report() const { return report_; }

 private:
  int64_t tally(std::pair<int64_t, bool> result, int64_t RowCounts::*field) {
    RowCounts& counts = result.second ? report_.added : report_.present;
    ++(counts.*field);
    return result.first;
  }

  TuningDb::Impl& db_;  // the database written to
  CopyReport report_;   // rows added and rows already present so far
};

}  // namespace ktune::tuning_db::internal
