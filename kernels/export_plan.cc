#include "kernels/export_plan.h"


#include <algorithm>
#include <set>
#include <map>
#include <tuple>

#include "common/error.h"
#include "schedule_store/db_records.h"
#include "schedule_store/stored_database.h"
#include "schedule_store/stored_schedule.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/c_identifier.h"
#include "targets/device_lookup.h"
#include "tuning_db/tuning_db.h"

namespace ktune::kernels {
namespace {

struct Requested {
  std::shared_ptr<const subgraphs::Subgraph> subgraph;
  std::string name;
};

bool is_spec_path(const std::string& s) { return s.size() > 5 && s.substr(s.size() - 5) == ".json"; }

std::shared_ptr<const subgraphs::Subgraph> rebuild(const tuning_db::WorkloadRecord& w, const std::string& db_path) {
  std::shared_ptr<const subgraphs::Subgraph> sg = schedule_store::subgraph_from_record(w);
  if (!sg) {
    throw UserError(format_user_error(db_path, "workloads." + w.name,
                                      "cannot rebuild workload " + w.key + " from its stored spec; pass its spec file"));
  }
  return sg;
}

std::vector<Requested> resolve_workloads(const ExportRequest& req, tuning_db::TuningDb& db,
                                         const std::string& device_key) {
  std::vector<Requested> out;
  if (req.all) {
    for (const tuning_db::BestEntry& b : db.best_all()) {
      if (b.device_key != device_key) continue;
      for (const tuning_db::WorkloadRecord& w : db.find_workloads(b.workload_key)) {
        if (w.key == b.workload_key) out.push_back({rebuild(w, req.db_path), w.name});
      }
    }
  }
  for (const std::string& wanted : req.workloads) {
    if (is_spec_path(wanted)) {
      std::shared_ptr<const subgraphs::Subgraph> sg = subgraphs::load_spec_subgraph(wanted);
      out.push_back({sg, sg->name()});
      continue;
    }
    const std::vector<tuning_db::WorkloadRecord> found = db.find_workloads(wanted);
    if (found.empty()) {
      throw UserError("export: --workload \"" + wanted + "\": no workload with this name or key in " + req.db_path +
                      " (pass a spec file to export a workload the database does not hold)");
    }
    if (found.size() > 1) {
      std::string msg = "export: --workload \"" + wanted + "\" matches " + std::to_string(found.size()) +
                        " workloads; give a key:";
      for (const auto& w : found) msg += "\n  " + w.key + " " + w.name + " " + w.shapes;
      throw UserError(msg);
    }
    out.push_back({rebuild(found[0], req.db_path), found[0].name});
  }
  for (const Requested& r : out) {
    if (r.subgraph->kind() != "spec") {
      throw UserError("export: workload " + r.name + " comes from a Halide Generator; ktune exports spec workloads " +
                      "only (use `ktune query --format halide` to schedule the Generator in its own build)");
    }
  }
  // One kernel per workload key, in a stable order whatever the order of the flags.
  std::sort(out.begin(), out.end(), [](const Requested& a, const Requested& b) {
    return std::tie(a.name, a.subgraph->key().key) < std::tie(b.name, b.subgraph->key().key);
  });
  // The same workload may be asked for under two names (a renamed spec): keep the first
  // in that order. Equal keys need not be neighbours, since the order is by name first.
  std::set<std::string> seen_keys;
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const Requested& r) { return !seen_keys.insert(r.subgraph->key().key).second; }),
            out.end());
  if (out.empty()) {
    throw UserError(req.all ? "export: --all: no workload of " + req.db_path + " is tuned on device " + device_key
                            : std::string("export: give --workload NAME|KEY|SPEC (repeatable) or --all"));
  }
  return out;
}

// The stored best, applied and lowered; the reason it cannot be used otherwise.
std::string try_tuned(PlannedKernel& k, tuning_db::TuningDb& db, const std::string& device_key,
                      const scheduler::Space& space, const std::string& halide_target) {
  schedule_store::StoredLookup found = schedule_store::find_stored_best(db, k.workload_key, device_key);
  if (!found.stored) return found.reason;
  schedule_store::LoweredSchedule lowered =
      schedule_store::lower_stored(found.stored->schedule, *k.subgraph, space.analysis(), halide_target);
  if (!lowered.ok()) return "the stored schedule " + lowered.problem;
  k.tuned = true;
  k.best = std::move(found.stored->entry);
  k.schedule = std::move(found.stored->schedule);
  k.applied = std::move(lowered.applied);
  return "";
}

}  // namespace

ExportPlan plan_export(const ExportRequest& req) {
  if (req.db_path.empty()) throw UserError("export: --db FILE is required");
  // Read-only; its pages are checked first: no kernels from a damaged file.
  tuning_db::TuningDb db = schedule_store::open_tuning_db(req.db_path, sqlite::OpenMode::kReadOnly,
                                                          schedule_store::PageCheck::kIfSmall);

  // This CPU or a known GPU by name needs no database row, so a card nothing was measured
  // on still gets its heuristic kernels (the fallback); a key must be one the database holds.
  const targets::Device device = targets::resolve_device(req.device, schedule_store::stored_description_in(db), req.db_path + ": --device");
  ExportPlan plan;
  plan.device_key = targets::device_key(device);
  plan.halide_target = device.halide_target;
  plan.device_kind = device.kind;
  const scheduler::TargetInfo target = scheduler::target_info_from_device(device);

  const std::vector<Requested> requested = resolve_workloads(req, db, plan.device_key);
  std::vector<std::string> names;
  for (const Requested& r : requested) names.push_back(r.name);
  const std::vector<std::string> functions = targets::unique_c_identifiers(names, "ktune_");

  for (size_t i = 0; i < requested.size(); ++i) {
    PlannedKernel k;
    k.function = functions[i];
    k.subgraph = requested[i].subgraph;
    k.workload_name = requested[i].name;
    k.workload_key = k.subgraph->key().key;
    const scheduler::Space space(scheduler::analyze(*k.subgraph, target));
    const std::string reason = try_tuned(k, db, plan.device_key, space, plan.halide_target);
    if (!k.tuned) {
      plan.untuned.push_back(k.workload_name + " (" + k.workload_key + "): " + reason);
      if (req.fallback == ExportFallback::kError) continue;
      k.fallback = "heuristic";
      k.fallback_reason = reason;
      k.schedule = space.heuristic();
      k.applied = scheduler::apply(k.schedule, *k.subgraph, space.analysis());
      if (!k.applied.ok) {
        throw std::runtime_error("the heuristic schedule of " + k.workload_name + " does not apply: " + k.applied.error);
      }
    }
    k.schedule_hash = k.schedule.hash();
    plan.kernels.push_back(std::move(k));
  }
  if (req.fallback == ExportFallback::kError && !plan.untuned.empty()) plan.kernels.clear();
  return plan;
}

}  // namespace ktune::kernels
