// Re-measuring stored best schedules after an upgrade. A database's timings were taken by
// some ktune and Halide version; after either changes, a stored best may be slower, or no
// longer build. revalidate() rebuilds each stale workload, measures its best schedules again
// (the best and the runner-up) with the running versions, marks the old rows superseded and
// reports what changed. `ktune db revalidate` prints the result.
//
//   RevalidateOptions options;  // the best and the runner-up, stale workloads only
//   for (const WorkloadRecheck& w : revalidate(db, host, options, progress)) print(w);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/runner.h"
#include "targets/device.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search {

struct RevalidateOptions {
  int schedules_per_workload = 2;       // the best and the runner-up; >= 1
  bool all = false;                     // also workloads whose best was taken by these versions
  std::vector<std::string> workloads;   // workload keys to recheck; empty: every workload
  measure::RunOptions run;              // threads and timing protocol of the new measurements
};

// One stored schedule measured again.
struct ScheduleRecheck {
  std::string hash;          // the schedule
  double old_ns = -1;        // its stored median, ns
  std::string old_versions;  // "ktune 0.1.0, Halide 14.0.0": who took that timing
  std::string status;        // the new measurement's status ("ok", "build_error", ...)
  double new_ns = -1;        // its new median, ns; -1 unless ok
  std::string message;       // failure detail; empty when ok
};

// What revalidation did to one workload on the device.
struct WorkloadRecheck {
  std::string name;               // workload name
  std::string key;                // workload key
  std::string skipped;            // why it was not re-measured; empty when it was
  std::string old_best_hash;      // the best before
  double old_best_ns = -1;        // its stored median, ns
  std::vector<ScheduleRecheck> schedules;  // the schedules measured again, best first
  int superseded = 0;             // rows of other versions marked superseded
  std::optional<std::string> new_best_hash;  // the best now; nullopt when none is left
  double new_best_ns = -1;        // its median now, ns
};

// Re-measures the best schedules of every workload of `db` whose best on `device` is stale
// (or every workload with options.all), records the new measurements (stamped with the
// running versions), marks the rows of other versions superseded, and returns one entry per
// workload looked at, by name. `device` must be this machine's CPU: its kernels run here.
// `progress` gets one line per step. Throws UserError when `device` is not in the database.
std::vector<WorkloadRecheck> revalidate(tuning_db::TuningDb& db, const targets::Device& device,
                                        const RevalidateOptions& options,
                                        const std::function<void(const std::string&)>& progress);

}  // namespace ktune::search
