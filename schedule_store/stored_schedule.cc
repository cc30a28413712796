#include "schedule_store/stored_schedule.h"

#include <nlohmann/json.hpp>

#include <utility>

#include "common/error.h"

namespace ktune::schedule_store {

scheduler::Schedule parse_stored_schedule(const std::string& schedule_json, const std::string& where) {
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(schedule_json);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(format_user_error(where, "schedule", std::string("is not JSON: ") + e.what()));
  }
  return scheduler::Schedule::from_json(parsed, where);
}

StoredSchedule stored_schedule_of(tuning_db::BestEntry entry, const std::string& db_path) {
  scheduler::Schedule schedule =
      parse_stored_schedule(entry.schedule_json, db_path + " (schedule " + entry.schedule_hash + ")");
  return {std::move(entry), std::move(schedule)};
}

StoredLookup find_stored_best(tuning_db::TuningDb& db, const std::string& workload_key, const std::string& device_key) {
  StoredLookup out;
  std::optional<tuning_db::BestEntry> best = db.best(workload_key, device_key);
  if (!best) {
    out.reason = "no ok measurement on device " + device_key;
    return out;
  }
  out.measured = true;
  try {
    out.stored = stored_schedule_of(std::move(*best), db.path());
  } catch (const std::exception& e) {
    out.reason = std::string("the stored schedule does not parse: ") + e.what();
  }
  return out;
}

LoweredSchedule lower_stored(const scheduler::Schedule& schedule, const subgraphs::Subgraph& subgraph,
                             const scheduler::Analysis& analysis, const std::string& halide_target) {
  LoweredSchedule out;
  out.applied = scheduler::apply(schedule, subgraph, analysis);
  if (!out.applied.ok) {
    out.problem = "no longer applies: " + out.applied.error;
  } else if (std::optional<std::string> err = scheduler::lower(out.applied, halide_target)) {
    out.problem = "no longer lowers: " + *err;
  }
  return out;
}

}  // namespace ktune::schedule_store
