#include "tools/autoschedule_ktune/tuned_schedule.h"

#include <Halide.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "common/error.h"
#include "schedule_store/stored_database.h"
#include "schedule_store/stored_schedule.h"
#include "scheduler/analysis.h"
#include "scheduler/apply.h"
#include "scheduler/schedule.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/canonical_names.h"
#include "subgraphs/pipeline_subgraph.h"
#include "tools/autoschedule_ktune/target_device.h"
#include "tuning_db/tuning_db.h"

namespace ktune::autoschedule {
namespace {

namespace HI = Halide::Internal;

// `Func name = pipeline.get_func(i);` for every scheduled Func, so the schedule source
// compiles inside the `apply_schedule_<name>(pipeline, target)` of a .schedule.h.
std::string func_bindings(const subgraphs::BuiltPipeline& built) {
  std::vector<HI::Function> outputs;
  for (const Halide::Func& f : built.outputs) outputs.push_back(f.function());
  std::map<std::string, HI::Function> env;
  for (const HI::Function& f : outputs) {
    const auto more = HI::find_transitive_calls(f);
    env.insert(more.begin(), more.end());
  }
  const std::vector<std::string> order = HI::topological_order(outputs, env);
  const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(built);
  const std::vector<subgraphs::FuncNames> names = subgraphs::canonical_names(funcs);
  std::ostringstream os;
  for (size_t i = 0; i < funcs.size(); ++i) {
    for (size_t k = 0; k < order.size(); ++k) {
      if (order[k] == funcs[i].name()) {
        os << "::Halide::Func " << names[i].name << " = pipeline.get_func(" << k << ");\n";
      }
    }
  }
  return os.str();
}

// What the lookup has found so far, step by step.
struct Lookup {
  std::unique_ptr<subgraphs::PipelineSubgraph> sg;  // the Generator's pipeline as a subgraph
  std::optional<tuning_db::TuningDb> db;            // KTUNE_DB, read-only
  DeviceChoice device;                              // the device schedules are looked up for
  schedule_store::StoredLookup found;               // its best stored schedule
};

// The workload key, computed by the code path `ktune tune --generator` uses.
bool compute_workload_key(const Halide::Pipeline& pipeline, const std::string& name, const PluginConfig& config,
                          Lookup& lookup, TunedLookup& r) {
  try {
    lookup.sg = std::make_unique<subgraphs::PipelineSubgraph>(
        name, [pipeline] { return subgraphs::copy_pipeline(pipeline); }, "ktune autoscheduler",
        "pipeline " + name, config.inputs, config.input_ranges);
  } catch (const std::exception& e) {
    r.reason = std::string("cannot compute the workload key: ") + e.what();
    return false;
  }
  r.workload_key = lookup.sg->key().key;
  r.shapes = lookup.sg->key().shapes;
  return true;
}

bool open_database(const PluginConfig& config, Lookup& lookup, TunedLookup& r) {
  if (!std::filesystem::exists(config.db)) {
    r.reason = "KTUNE_DB=" + config.db + " does not exist";
    return false;
  }
  try {
    lookup.db.emplace(schedule_store::open_tuning_db(config.db, sqlite::OpenMode::kReadOnly));
  } catch (const std::exception& e) {
    r.reason = "cannot read KTUNE_DB=" + config.db + ": " + e.what();
    return false;
  }
  return true;
}

// The device for `target` and the workload's best stored schedule on it; warns when that
// was measured by another ktune or Halide version.
bool find_best_schedule(const Halide::Target& target, const std::string& name, const PluginConfig& config,
                        Lookup& lookup, TunedLookup& r) {
  try {
    lookup.device = choose_device(target, config.device, *lookup.db);
    if (lookup.device.key.empty()) {
      r.reason = lookup.device.reason;
      return false;
    }
    r.device_key = lookup.device.key;
    lookup.found = schedule_store::find_stored_best(*lookup.db, r.workload_key, lookup.device.key);
  } catch (const std::exception& e) {
    r.reason = "cannot read KTUNE_DB=" + config.db + ": " + e.what();
    return false;
  }
  if (!lookup.found.stored) {
    r.untuned = !lookup.found.measured;
    r.reason = r.untuned ? "no tuned schedule for " + name + " (workload " + r.workload_key + ", " + r.shapes +
                               ") on device " + lookup.device.key + " in " + config.db
                         : lookup.found.reason;
    return false;
  }
  const tuning_db::BestEntry& best = lookup.found.stored->entry;
  if (best.stale) {
    std::fprintf(stderr, "ktune: warning: the schedule of %s was measured by another ktune or Halide version (%s, Halide %s)\n",
                 name.c_str(), best.measurement.ktune_version.c_str(), best.measurement.halide_version.c_str());
  }
  return true;
}

// The stored schedule checked (the validators `ktune tune`, `bench` and `space` apply: one
// verdict on a schedule everywhere), applied to a copy and lowered first, so a schedule
// Halide rejects leaves the Generator's pipeline untouched for the fallback; then applied
// to the Generator's `pipeline` itself, which `built` is set to.
std::optional<scheduler::ApplyResult> apply_checked(const Halide::Pipeline& pipeline, const Halide::Target& target,
                                                    const std::string& name, const Lookup& lookup,
                                                    std::shared_ptr<subgraphs::BuiltPipeline>& built, TunedLookup& r) {
  const std::string& hash = lookup.found.stored->entry.schedule_hash;
  const scheduler::Schedule& schedule = lookup.found.stored->schedule;
  scheduler::Analysis analysis;
  try {
    const scheduler::TargetInfo info =
        lookup.device.device ? scheduler::target_info_from_device(*lookup.device.device) : scheduler::TargetInfo{};
    analysis = scheduler::analyze(*lookup.sg, info);
  } catch (const std::exception& e) {
    r.reason = "the stored schedule " + hash + " cannot be read: " + e.what();
    return std::nullopt;
  }
  const scheduler::Space space(analysis);
  if (auto invalid = space.validate(schedule)) {
    r.reason = "the stored schedule " + hash + " no longer applies: the validators refuse it (" + *invalid + ")";
    return std::nullopt;
  }
  const schedule_store::LoweredSchedule trial = schedule_store::lower_stored(schedule, *lookup.sg, analysis, target.to_string());
  if (!trial.ok()) {
    r.reason = "the stored schedule " + hash + " " + trial.problem;
    return std::nullopt;
  }
  built = std::make_shared<subgraphs::BuiltPipeline>(subgraphs::built_from_pipeline(pipeline));
  scheduler::ApplyResult applied = scheduler::apply_to(schedule, built, analysis, name);
  if (!applied.ok) {
    r.reason = "the stored schedule " + hash + " no longer applies: " + applied.error;
    return std::nullopt;
  }
  return applied;
}

// The text the Generator writes to `<name>.schedule.h`: where the schedule comes from, the
// Func bindings and the schedule source.
std::string tuned_source(const std::string& name, const PluginConfig& config, const Lookup& lookup,
                         const subgraphs::BuiltPipeline& built, const std::string& source, const TunedLookup& r) {
  const tuning_db::BestEntry& best = lookup.found.stored->entry;
  const DeviceChoice& device = lookup.device;
  std::ostringstream os;
  os << "// ktune: tuned schedule " << best.schedule_hash << " for " << name << "\n"
     << "//   workload key " << r.workload_key << " (" << r.shapes << ")\n"
     << "//   device " << device.key << (device.device ? " (" + device.device->halide_target + ")" : "") << "\n"
     << "//   measured median " << static_cast<int64_t>(best.measurement.median_ns.value_or(-1))
     << " ns, the best of " << best.candidates << (best.candidates == 1 ? " schedule" : " schedules")
     << " measured; database " << config.db << "\n"
     << func_bindings(built) << source;
  return os.str();
}

}  // namespace

TunedLookup apply_tuned_schedule(const Halide::Pipeline& pipeline, const Halide::Target& target,
                                 const std::string& name, const PluginConfig& config) {
  TunedLookup r;
  if (config.db.empty()) {
    r.reason = "KTUNE_DB is not set (it names the tuning database to read schedules from)";
    return r;
  }
  if (!config.inputs_error.empty()) {
    r.reason = config.inputs_error;
    return r;
  }
  Lookup lookup;
  if (!compute_workload_key(pipeline, name, config, lookup, r) || !open_database(config, lookup, r) ||
      !find_best_schedule(target, name, config, lookup, r)) {
    return r;
  }
  std::shared_ptr<subgraphs::BuiltPipeline> built;
  const std::optional<scheduler::ApplyResult> applied = apply_checked(pipeline, target, name, lookup, built, r);
  if (!applied) return r;
  const tuning_db::BestEntry& best = lookup.found.stored->entry;
  r.applied = true;
  r.source = tuned_source(name, config, lookup, *built, applied->source, r);
  r.schedule_hash = best.schedule_hash;
  r.median_ns = best.measurement.median_ns.value_or(-1);
  return r;
}

}  // namespace ktune::autoschedule
