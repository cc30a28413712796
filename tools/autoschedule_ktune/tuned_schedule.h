// The plugin's main path: compute the workload key of the pipeline a Generator handed
// over (the same key `ktune tune --generator` stores), look up the best schedule for the
// device in the database, and apply it to the pipeline in place, returning the text the
// Generator writes to `<name>.schedule.h`. When any step fails the pipeline is left
// unscheduled and the result says why, so a fallback autoscheduler can take over.
#pragma once

#include <optional>
#include <string>

#include "tools/autoschedule_ktune/plugin_config.h"

namespace Halide {
class Pipeline;
struct Target;
}  // namespace Halide

namespace ktune::autoschedule {

struct TunedLookup {
  bool applied = false;       // the tuned schedule now schedules the pipeline
  std::string source;         // when applied: comment, Func bindings and the schedule source
  std::string reason;         // when not applied: why, as a sentence
  bool untuned = false;       // not applied because the database has no schedule for it
  std::string workload_key;   // empty when the key could not be computed
  std::string shapes;         // the workload's shapes, for messages
  std::string device_key;     // empty when no device applies
  std::string schedule_hash;  // when applied
  double median_ns = -1;      // when applied: the stored measurement
};

// `name` names the pipeline in the schedule source and in messages (the generator name).
TunedLookup apply_tuned_schedule(const Halide::Pipeline& pipeline, const Halide::Target& target,
                                 const std::string& name, const PluginConfig& config);

}  // namespace ktune::autoschedule
