// The ktune autoscheduler as Halide calls it: a tuned schedule from the database when
// one applies (tuned_schedule.h), otherwise the fallback autoscheduler with a warning
// that names the untuned pipeline and says how to tune it. The Halide-version-specific
// registration lives in halide14_hook.cc; this function is what it calls.
#pragma once

#include <map>
#include <string>

#include "tools/autoschedule_ktune/plugin_config.h"

namespace Halide {
class Pipeline;
struct Target;
struct MachineParams;
struct AutoSchedulerResults;
}  // namespace Halide

namespace ktune::autoschedule {

// Schedules `pipeline` and fills `results` (scheduler name, schedule source, and what the
// fallback returned). `name` names the pipeline in messages; empty means the generator
// named on this process's command line, else the pipeline's outputs.
void autoschedule(const Halide::Pipeline& pipeline, const Halide::Target& target, const Halide::MachineParams& params,
                  const PluginConfig& config, const std::string& name, Halide::AutoSchedulerResults* results);

// The warning printed when falling back (exposed for tests); `input_flags` are the tune
// flags of KTUNE_INPUTS (tune_input_flags).
std::string fallback_warning(const std::string& name, const std::string& reason, bool untuned,
                             const std::string& fallback, const std::string& db,
                             const std::map<std::string, std::string>& params, const std::string& input_flags = "");

}  // namespace ktune::autoschedule
