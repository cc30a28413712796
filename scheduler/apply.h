// apply(): a Schedule on a fresh pipeline of the subgraph, and, from the same traversal,
// the equivalent Halide C++ schedule source a person can paste into a Generator's
// schedule(). Halide's errors (at the scheduling calls, or when lowering) come back as
// a status with Halide's message, never as an exception.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::subgraphs {
class Subgraph;
struct BuiltPipeline;
}  // namespace ktune::subgraphs

namespace ktune::scheduler {

struct ApplyResult {
  bool ok = false;     // every scheduling call succeeded
  std::string error;   // Halide's message when !ok
  std::string source;  // the Halide C++ schedule, one statement per line
  std::shared_ptr<subgraphs::BuiltPipeline> built;  // the scheduled pipeline (null when !ok)
};

// `analysis` must come from the same subgraph (it tells pure loops from reduction loops).
ApplyResult apply(const Schedule& schedule, const subgraphs::Subgraph& subgraph, const Analysis& analysis);

// Schedules an already built (fresh) pipeline in place; `workload` names it in the source.
ApplyResult apply_to(const Schedule& schedule, std::shared_ptr<subgraphs::BuiltPipeline> built,
                     const Analysis& analysis, const std::string& workload);

// The schedule as a function that schedules a fresh pipeline, for the measurement layer's
// candidates. Halide's rejection is rethrown as a Halide::CompileError. `analysis` must
// outlive the function.
std::function<void(const subgraphs::BuiltPipeline&)> make_applier(Schedule schedule, const Analysis& analysis);

// Lowers the scheduled pipeline for `halide_target` without generating code, which
// surfaces the errors Halide only reports at lowering (illegal compute locations).
// Returns Halide's message, or nullopt when lowering succeeds.
std::optional<std::string> lower(const ApplyResult& applied, const std::string& halide_target);

// The loop nest Halide lowers the pipeline to (Pipeline::print_loop_nest). Not thread-safe:
// it redirects std::cerr while printing.
std::string loop_nest_text(const ApplyResult& applied);

}  // namespace ktune::scheduler
