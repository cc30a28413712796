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
  // The workload key, computed by the code path `ktune tune --generator` uses.
  std::unique_ptr<subgraphs::PipelineSubgraph> sg;
  try {
    sg = std::make_unique<subgraphs::PipelineSubgraph>(
        name, [pipeline] { return subgraphs::copy_pipeline(pipeline); }, "ktune autoscheduler",
        "pipeline " + name, config.inputs, config.input_ranges);
  } catch (const std::exception& e) {
    r.reason = std::string("cannot compute the workload key: ") + e.what();
    return r;
  }
  r.workload_key = sg->key().key;
  r.shapes = sg->key().shapes;

  if (!std::filesystem::exists(config.db)) {
    r.reason = "KTUNE_DB=" + config.db + " does not exist";
    return r;
  }
  std::optional<tuning_db::TuningDb> db;
  try {
    db.emplace(schedule_store::open_tuning_db(config.db, sqlite::OpenMode::kReadOnly));
  } catch (const std::exception& e) {
    r.reason = "cannot read KTUNE_DB=" + config.db + ": " + e.what();
    return r;
  }

  schedule_store::StoredLookup found;
  DeviceChoice device;
  try {
    device = choose_device(target, config.device, *db);
    if (device.key.empty()) {
      r.reason = device.reason;
      return r;
    }
    r.device_key = device.key;
    found = schedule_store::find_stored_best(*db, r.workload_key, device.key);
  } catch (const std::exception& e) {
    r.reason = "cannot read KTUNE_DB=" + config.db + ": " + e.what();
    return r;
  }
  if (!found.stored) {
    r.untuned = !found.measured;
    r.reason = r.untuned ? "no tuned schedule for " + name + " (workload " + r.workload_key + ", " + r.shapes +
                               ") on device " + device.key + " in " + config.db
                         : found.reason;
    return r;
  }
  const tuning_db::BestEntry& best = found.stored->entry;
  if (best.stale) {
    std::fprintf(stderr, "ktune: warning: the schedule of %s was measured by another ktune or Halide version (%s, Halide %s)\n",
                 name.c_str(), best.measurement.ktune_version.c_str(), best.measurement.halide_version.c_str());
  }

  // Apply to a copy first and lower it, so a schedule Halide rejects leaves the Generator's
  // pipeline untouched for the fallback.
  scheduler::Analysis analysis;
  try {
    const scheduler::TargetInfo info =
        device.device ? scheduler::target_info_from_device(*device.device) : scheduler::TargetInfo{};
    analysis = scheduler::analyze(*sg, info);
  } catch (const std::exception& e) {
    r.reason = "the stored schedule " + best.schedule_hash + " cannot be read: " + e.what();
    return r;
  }
  // The validators `ktune tune`, `bench` and `space` apply: one verdict on a schedule everywhere.
  const scheduler::Space space(analysis);
  if (auto invalid = space.validate(found.stored->schedule)) {
    r.reason = "the stored schedule " + best.schedule_hash + " no longer applies: the validators refuse it (" +
               *invalid + ")";
    return r;
  }
  const schedule_store::LoweredSchedule trial =
      schedule_store::lower_stored(found.stored->schedule, *sg, analysis, target.to_string());
  if (!trial.ok()) {
    r.reason = "the stored schedule " + best.schedule_hash + " " + trial.problem;
    return r;
  }
  const scheduler::Schedule& schedule = found.stored->schedule;
  auto built = std::make_shared<subgraphs::BuiltPipeline>(subgraphs::built_from_pipeline(pipeline));
  const scheduler::ApplyResult applied = scheduler::apply_to(schedule, built, analysis, name);
  if (!applied.ok) {
    r.reason = "the stored schedule " + best.schedule_hash + " no longer applies: " + applied.error;
    return r;
  }

  const double median = best.measurement.median_ns.value_or(-1);
  std::ostringstream os;
  os << "// ktune: tuned schedule " << best.schedule_hash << " for " << name << "\n"
     << "//   workload key " << r.workload_key << " (" << r.shapes << ")\n"
     << "//   device " << device.key << (device.device ? " (" + device.device->halide_target + ")" : "") << "\n"
     << "//   measured median " << static_cast<int64_t>(median) << " ns, the best of " << best.candidates
     << (best.candidates == 1 ? " schedule" : " schedules") << " measured; database " << config.db << "\n"
     << func_bindings(*built) << applied.source;
  r.applied = true;
  r.source = os.str();
  r.schedule_hash = best.schedule_hash;
  r.median_ns = median;
  return r;
}

}  // namespace ktune::autoschedule
