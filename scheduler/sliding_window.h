// Sliding windows: a Func computed at one loop of its host (a row of a strip) and stored at
// a loop around it (the strip), so that Halide computes each new row of it once and keeps
// only the rows still read. Which store loops are legal, and the ones the space offers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/loop_nest.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Why `at` (computed at `at.loop`, stored at `at.store_loop`, both loops of `nest`, the
// host stage `host_stage`) cannot hold a window, or nullopt: the store loop must be around
// the compute loop and not fused into a parallel loop, and no loop from the compute loop out
// to the store loop may be parallel, vectorized or unrolled (every task would write the one
// buffer; Halide refuses it) or be the inner piece of a guarded split (Halide then computes
// the window whole at every step: 3x slower on a 3-stencil chain).
std::optional<std::string> window_problem(const ComputeLocation& at, const StageSchedule& host_stage,
                                          const LoopNest& nest);

// For each location of `at` (all at loops of one host stage), the same location stored at
// each loop around it that window_problem accepts: the windows a Func computed there may use.
std::vector<ComputeLocation> window_locations(const Analysis& analysis, const Schedule& schedule,
                                              const std::vector<ComputeLocation>& at);

}  // namespace ktune::scheduler
