// The tiling choices of a stage that no family template (family_templates.h,
// conv_templates.h) claims: the heuristic's, from the stage's loops and the target's vector
// lanes and cores, and a draw over widths, tiles, unrolling, reduction splits and rfactor.
#pragma once

#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/stage_template.h"

namespace ktune::scheduler {

// The heuristic's tiling choice for a stage: native vectors along the innermost pure loop,
// tiles of 4 rows (unrolled) under a reduction and of 8 rows otherwise, a long reduction
// split into pieces of 4 vectors where the pure loops offer too little parallelism, blocks
// of a long 1-D loop sized for the thread pool, and one parallel loop when at root.
TilingChoice heuristic_choice(const StageAnalysis& stage, bool at_root, const TargetInfo& target);

// A drawn tiling: register tiles stay within half the vector registers.
TilingChoice sampled_choice(const StageAnalysis& stage, bool at_root, const TargetInfo& target, Rng& rng);

}  // namespace ktune::scheduler
