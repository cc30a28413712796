// The autoscheduler that schedules a pipeline ktune has no tuned schedule for. Halide's
// own autoschedulers ship as plugins (Debian: /usr/lib/x86_64-linux-gnu/halide14/); the
// one named is loaded here unless the Generator already loaded it with -p.
#pragma once

#include <string>

namespace Halide {
class Pipeline;
struct Target;
struct MachineParams;
struct AutoSchedulerResults;
}  // namespace Halide

namespace ktune::autoschedule {

// The plugin library that registers a Halide autoscheduler: "Adams2019" ->
// "libautoschedule_adams2019.so"; empty for names Halide does not ship.
std::string halide_plugin_library(const std::string& autoscheduler);

// Runs `autoscheduler` on the pipeline (loading Halide's plugin for it when needed) and
// returns what it produced. Throws Halide::CompileError for "none", for ktune's own name,
// and when the plugin cannot be loaded.
Halide::AutoSchedulerResults run_fallback(const std::string& autoscheduler, const Halide::Pipeline& pipeline,
                                          const Halide::Target& target, const Halide::MachineParams& params);

}  // namespace ktune::autoschedule
