// Where the Space computes each Func as it builds a schedule from the outputs back: the
// heuristic's choice (inline what is cheap to recompute, a column reduction at root, an
// accumulator per tile of its consumer, a reduction or a full-resolution stencil at the
// outer tile loop that recomputes nothing, else root) or a draw among the options.
#pragma once

#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// The compute location of Func `func` of `schedule` (whose consumers are already decided),
// picked from `options` (Space::compute_options): the heuristic's where `rng` is null, a draw
// otherwise.
ComputeLocation choose_compute(const Analysis& analysis, const Schedule& schedule, int func,
                               const std::vector<ComputeLocation>& options, Rng* rng);

}  // namespace ktune::scheduler
