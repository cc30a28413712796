// A schedule read back from the tuning database, the one path from a stored row to a kernel:
// the stored best of a workload on a device (its workload, device and measurement, with the
// schedule parsed), and that schedule applied to a fresh pipeline and lowered for a target.
// The tuner (warm start), query, export, bundle, the plugin, bench, revalidate and the cost
// model's dataset read stored schedules through here, so a stored row means the same thing
// to all of them.
//
//   const StoredLookup found = find_stored_best(db, sg.key().key, device_key);
//   if (!found.stored) return found.reason;
//   const LoweredSchedule kernel = lower_stored(*found.stored, sg, analysis, target_string);
#pragma once

#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/apply.h"
#include "scheduler/schedule.h"
#include "subgraphs/subgraph.h"
#include "tuning_db/records.h"
#include "tuning_db/tuning_db.h"

namespace ktune::schedule_store {

// A stored best with its schedule parsed.
struct StoredSchedule {
  tuning_db::BestEntry entry;    // workload, device, hash, JSON, its fastest ok measurement
  scheduler::Schedule schedule;  // entry.schedule_json, parsed
};

// The schedule JSON of a database row. Throws UserError naming `where` and the field when
// it does not parse (a row written by a newer ktune, or edited by hand).
scheduler::Schedule parse_stored_schedule(const std::string& schedule_json, const std::string& where);

// `entry` with its schedule parsed; where a parse error names the database and the hash.
StoredSchedule stored_schedule_of(tuning_db::BestEntry entry, const std::string& db_path);

// The best of a workload on a device, or the reason there is none usable.
struct StoredLookup {
  std::optional<StoredSchedule> stored;  // set when the database has a parseable best
  bool measured = false;                 // the database has an ok measurement (its best may not parse)
  std::string reason;                    // when not: "no ok measurement on device KEY", or the parse error
};
StoredLookup find_stored_best(tuning_db::TuningDb& db, const std::string& workload_key, const std::string& device_key);

// A stored schedule applied to a fresh pipeline of `subgraph` and lowered for `halide_target`.
struct LoweredSchedule {
  scheduler::ApplyResult applied;  // the scheduled pipeline and its Halide source
  std::string problem;             // empty when usable, else why: "no longer applies: ...", "no longer lowers: ..."
  bool ok() const { return problem.empty(); }
};
LoweredSchedule lower_stored(const scheduler::Schedule& schedule, const subgraphs::Subgraph& subgraph,
                             const scheduler::Analysis& analysis, const std::string& halide_target);

}  // namespace ktune::schedule_store
