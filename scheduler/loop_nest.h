// The loops of one stage after a StageSchedule's splits: names, extents, which original
// loop each comes from, and their order. Validators, mutators, the sampler and apply
// all reason about a stage through this one view.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// One loop after splits.
struct NestLoop {
  std::string name;          // loop name (an original loop or a split product)
  int64_t extent = 1;        // iterations (outer pieces round up)
  std::string origin;        // the original loop it was split from
  bool is_reduction = false; // derived from a reduction variable
  bool carries_dependence = false;  // inherited from the original loop
  bool innermost_piece = true;      // the innermost piece of its original loop
};

struct LoopNest {
  std::vector<NestLoop> loops;  // in execution order after `order`, innermost first
  const NestLoop* find(const std::string& name) const;
  int position(const std::string& name) const;  // -1 if absent
};

// Applies the splits and the order of `stage` to the loops of `analysis`. Returns nullopt
// with `error` set when a split names a missing loop or reuses a name, or the order is
// not a permutation of the loops.
std::optional<LoopNest> build_loop_nest(const StageAnalysis& analysis, const StageSchedule& stage,
                                        std::string* error);

// Whether the pieces of split `split` (one of stage.splits) are reduction loops: the loop it
// splits, followed back through earlier splits, is one.
bool splits_reduction(const StageAnalysis& analysis, const StageSchedule& stage, const LoopSplit& split);

}  // namespace ktune::scheduler
