// A tuning database for the tests of the stored-schedule layer and the kernels above it:
// a spec workload and a schedule stored with an ok measurement on a device, written through
// TuningDb's public API, so each test knows what the stored best is.
#pragma once

#include <string>

#include "schedule_store/db_records.h"
#include "scheduler/schedule.h"
#include "subgraphs/subgraph.h"
#include "targets/device.h"
#include "tuning_db/tuning_db.h"

namespace ktune::testing {

// Stores `schedule` of `sg` on `device` with one ok measurement of `median_ns`; returns the
// measurement's schedule hash.
inline std::string store_measured(tuning_db::TuningDb& db, const subgraphs::Subgraph& sg,
                                  const scheduler::Schedule& schedule, const targets::Device& device,
                                  double median_ns) {
  const int64_t device_id = db.upsert_device(schedule_store::device_record(device));
  const int64_t workload_id = db.upsert_workload(schedule_store::workload_record(sg));
  tuning_db::MeasurementRecord m;
  m.schedule_id = db.upsert_schedule(workload_id, schedule.hash(), schedule.to_json().dump());
  m.device_id = device_id;
  m.median_ns = median_ns;
  m.min_ns = median_ns;
  m.spread_ns = 0;
  m.repeats = 5;
  m.threads = 1;
  db.record_measurement(m);
  return schedule.hash();
}

// A schedule row whose JSON parses but names a Func the workload lacks, so it no longer
// applies; returns its hash.
inline std::string store_unappliable(tuning_db::TuningDb& db, const subgraphs::Subgraph& sg, scheduler::Schedule schedule,
                                     const targets::Device& device, double median_ns) {
  schedule.funcs.at(0).func = "no_such_func";
  return store_measured(db, sg, schedule, device, median_ns);
}

}  // namespace ktune::testing
