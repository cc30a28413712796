#include "tools/autoschedule_ktune/ktune_autoscheduler.h"

#include <Halide.h>

#include <cstdio>

#include "tools/autoschedule_ktune/fallback_autoscheduler.h"
#include "tools/autoschedule_ktune/generator_invocation.h"
#include "tools/autoschedule_ktune/tuned_schedule.h"

namespace ktune::autoschedule {
namespace {

std::string outputs_name(const Halide::Pipeline& pipeline) {
  std::string name;
  for (const Halide::Func& f : pipeline.outputs()) name += (name.empty() ? "" : "+") + f.name();
  return name;
}

}  // namespace

std::string fallback_warning(const std::string& name, const std::string& reason, bool untuned,
                             const std::string& fallback, const std::string& db,
                             const std::map<std::string, std::string>& params, const std::string& input_flags) {
  std::string w = fallback == kNoFallback
                      ? "ktune: error: " + reason + "; KTUNE_FALLBACK_AUTOSCHEDULER=none, so " + name + " is not scheduled.\n"
                      : "ktune: warning: " + reason + "; scheduling " + name + " with " + fallback + " instead.\n";
  if (untuned) {
    std::string param_flags;
    for (const auto& [k, v] : params) param_flags += " --param " + k + "=" + v;
    w += "ktune: to tune " + name + ", build its generator as a shared library (add_library(gens MODULE ...) linked to "
         "Halide::Halide, without GenGen) and run:\n"
         "  ktune tune --generator libgens.so:" + name + param_flags + input_flags + " --db " + (db.empty() ? "tuning.db" : db) +
         " --budget 10m\n";
  }
  return w;
}

void autoschedule(const Halide::Pipeline& pipeline, const Halide::Target& target, const Halide::MachineParams& params,
                  const PluginConfig& config, const std::string& name, Halide::AutoSchedulerResults* results) {
  const GeneratorInvocation invocation = this_generator_invocation();
  std::string label = name;
  if (label.empty()) label = invocation.generator.empty() ? outputs_name(pipeline) : invocation.generator;

  const TunedLookup tuned = apply_tuned_schedule(pipeline, target, label, config);
  if (tuned.applied) {
    std::fprintf(stderr, "ktune: %s: tuned schedule %s (median %.0f ns on device %s)\n", label.c_str(),
                 tuned.schedule_hash.c_str(), tuned.median_ns, tuned.device_key.c_str());
    results->scheduler_name = kSchedulerName;
    results->schedule_source = tuned.source;
    return;
  }
  const std::string warning =
      fallback_warning(label, tuned.reason, tuned.untuned, config.fallback, config.db, invocation.params,
                       tune_input_flags(config));
  std::fputs(warning.c_str(), stderr);
  Halide::AutoSchedulerResults fallback = run_fallback(config.fallback, pipeline, target, params);
  std::string comment;
  size_t pos = 0;
  while (pos < warning.size()) {
    const size_t end = warning.find('\n', pos);
    comment += "// " + warning.substr(pos, end - pos) + "\n";
    pos = end == std::string::npos ? warning.size() : end + 1;
  }
  if (!tuned.workload_key.empty()) comment += "// ktune: workload key " + tuned.workload_key + " (" + tuned.shapes + ")\n";
  results->scheduler_name = fallback.scheduler_name;
  results->schedule_source = comment + fallback.schedule_source;
  results->featurization = fallback.featurization;
}

}  // namespace ktune::autoschedule
