// revalidate(): per workload, pick what to recheck, rebuild the subgraph from its stored
// row, measure the stored best schedules again, mark the old rows superseded, and read
// the new best back through the database's own rule.
#include "search/revalidate.h"

#include <algorithm>
#include <memory>

#include "common/check.h"
#include "common/error.h"
#include "measure/builder.h"
#include "schedule_store/db_records.h"
#include "schedule_store/stored_schedule.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"

namespace ktune::search {
namespace {

namespace db = tuning_db;

bool wanted(const RevalidateOptions& options, const db::BestEntry& best) {
  if (!options.all && !best.stale) return false;
  return options.workloads.empty() ||
         std::find(options.workloads.begin(), options.workloads.end(), best.workload_key) != options.workloads.end();
}

std::string versions_of(const db::MeasurementRecord& m) {
  return "ktune " + (m.ktune_version.empty() ? std::string("?") : m.ktune_version) + ", Halide " +
         (m.halide_version.empty() ? std::string("?") : m.halide_version);
}

// Why `entry`'s workload cannot be measured again, or empty: its stored row must still
// build to the same algorithm.
std::string rebuild_problem(const db::WorkloadRecord* workload, const subgraphs::Subgraph* sg) {
  if (!workload) return "the workload row is missing";
  if (!sg) return "its spec or Generator can no longer be built from the stored row";
  if (sg->key().key != workload->key) {
    return "it builds to another workload key now (" + sg->key().key + "): the algorithm changed; tune it again";
  }
  return "";
}

// Measures the stored schedules `entries` of `sg` once each and records the results.
std::vector<ScheduleRecheck> measure_again(db::TuningDb& store, const subgraphs::Subgraph& sg,
                                           const std::vector<db::BestEntry>& entries, int64_t device_id,
                                           const scheduler::TargetInfo& target, measure::Runner& runner) {
  const scheduler::Space space(scheduler::analyze(sg, target));
  std::vector<ScheduleRecheck> out;
  std::vector<measure::Candidate> candidates;
  for (const db::BestEntry& e : entries) {
    ScheduleRecheck r;
    r.hash = e.schedule_hash;
    r.old_ns = e.measurement.median_ns.value_or(-1);
    r.old_versions = versions_of(e.measurement);
    out.push_back(r);
    std::function<void(const subgraphs::BuiltPipeline&)> apply;
    try {
      const scheduler::Schedule s = schedule_store::parse_stored_schedule(e.schedule_json, "schedule " + e.schedule_hash);
      apply = scheduler::make_applier(s, space.analysis());
    } catch (const std::exception& ex) {
      // A stored schedule this ktune cannot read is measured as a rejected build.
      const std::string why = ex.what();
      apply = [why](const subgraphs::BuiltPipeline&) { throw UserError("the stored schedule no longer parses: " + why); };
    }
    candidates.push_back({&sg, e.schedule_hash, apply, "revalidate"});
  }
  measure::BuildOptions build;
  build.threads = 0;
  const measure::BuildBatch batch = measure::build_candidates(candidates, build);
  for (size_t i = 0; i < batch.candidates.size(); ++i) {
    const measure::MeasureResult result = runner.run(batch.candidates[i]);
    store.record_measurement(schedule_store::measurement_record(result, entries[i].schedule_id, device_id, -1));
    out[i].status = std::string(measure::to_string(result.status));
    out[i].new_ns = result.ok() ? result.median_ns : -1;
    out[i].message = result.message;
  }
  return out;
}

WorkloadRecheck recheck(db::TuningDb& store, const db::BestEntry& best, const targets::Device& device,
                        const RevalidateOptions& options, measure::Runner& runner,
                        const std::function<void(const std::string&)>& progress) {
  WorkloadRecheck w;
  w.name = best.workload_name;
  w.key = best.workload_key;
  w.old_best_hash = best.schedule_hash;
  w.old_best_ns = best.measurement.median_ns.value_or(-1);

  const std::vector<db::WorkloadRecord> rows = store.find_workloads(best.workload_key);
  const db::WorkloadRecord* workload = rows.empty() ? nullptr : &rows.front();
  std::unique_ptr<subgraphs::Subgraph> sg = workload ? schedule_store::subgraph_from_record(*workload) : nullptr;
  w.skipped = rebuild_problem(workload, sg.get());
  if (w.skipped.empty()) w.skipped = runner.reference_error(*sg);
  if (!w.skipped.empty()) return w;

  progress("ktune: " + w.name + ": measuring its best " + std::to_string(options.schedules_per_workload) +
           " schedule(s) again");
  const auto entries = store.top_k(best.workload_key, best.device_key, options.schedules_per_workload);
  const int64_t device_id = store.upsert_device(schedule_store::device_record(device));
  w.schedules = measure_again(store, *sg, entries, device_id, scheduler::target_info_from_device(device), runner);
  w.superseded = store.mark_superseded(best.workload_key, best.device_key);
  if (auto now = store.best(best.workload_key, best.device_key)) {
    w.new_best_hash = now->schedule_hash;
    w.new_best_ns = now->measurement.median_ns.value_or(-1);
  }
  return w;
}

}  // namespace

std::vector<WorkloadRecheck> revalidate(db::TuningDb& store, const targets::Device& device,
                                        const RevalidateOptions& options,
                                        const std::function<void(const std::string&)>& progress) {
  KTUNE_CHECK(options.schedules_per_workload >= 1) << "revalidate needs at least one schedule per workload";
  const std::string device_key = targets::device_key(device);
  if (!store.find_device(device_key)) {
    throw UserError(format_user_error(store.path(), "", "has no measurements of this machine (device " + device_key +
                                                            "); `ktune db stats` lists the devices it has"));
  }
  measure::Runner runner(options.run);
  std::vector<WorkloadRecheck> out;
  for (const db::BestEntry& best : store.best_all()) {
    if (best.device_key != device_key || !wanted(options, best)) continue;
    out.push_back(recheck(store, best, device, options, runner, progress));
  }
  return out;
}

}  // namespace ktune::search
