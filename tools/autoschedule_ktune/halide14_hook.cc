// The Halide 14 side of libautoschedule_ktune.so: loading the library registers the
// autoscheduler "Ktune" with Pipeline::add_autoscheduler, which Generators run with
// `-p libautoschedule_ktune.so -s Ktune auto_schedule=true` (CMake:
// `add_halide_library(... AUTOSCHEDULER ktune::Ktune)`). Halide 15 replaced this interface
// (AutoschedulerParams, `autoscheduler=`); porting means rewriting only this file.
#include <Halide.h>

#include "tools/autoschedule_ktune/ktune_autoscheduler.h"
#include "tools/autoschedule_ktune/plugin_config.h"

namespace {

struct RegisterKtuneAutoscheduler {
  RegisterKtuneAutoscheduler() {
    Halide::Pipeline::add_autoscheduler(
        ktune::autoschedule::kSchedulerName,
        [](const Halide::Pipeline& pipeline, const Halide::Target& target, const Halide::MachineParams& params,
           Halide::AutoSchedulerResults* results) {
          ktune::autoschedule::autoschedule(pipeline, target, params, ktune::autoschedule::config_from_environment(),
                                            "", results);
        });
  }
} register_ktune_autoscheduler;

}  // namespace
