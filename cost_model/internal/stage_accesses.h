// The accesses of one stage, followed through inlined Funcs and grouped by the buffer they
// touch (the stage's own store included), with their address steps along the innermost,
// vectorized and innermost reduction loops; and the arithmetic the inlined Funcs add.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cost_model/internal/footprint_cache.h"
#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/schedule_model.h"

namespace ktune::cost_model::internal {

// Fills sm.groups (all but the address steps), sm.ops and sm.loads; `inlined[f]` tells which
// Funcs are inlined.
void collect_accesses(const PipelineFacts& facts, const std::vector<bool>& inlined, FootprintCache& cache,
                      StageModel& sm);

// The address steps of every access group of `model`, once its Funcs' regions and the
// footprints are known: in each buffer as one realization stores it, in its storage order.
void set_address_steps(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                       const scheduler::Schedule& schedule, ScheduleModel& model);

// The part of input `buffer` that one iteration of `pack`'s loop reads: the footprint inside
// that loop where its host reads the input itself, else the largest of what the Funcs
// computed inside the host that read it read over their realizations inside that iteration
// (a matmul's accumulator per tile of a column panel reads the panel's rows of B, per tile
// of a head's rows all of the head's keys). Empty when the model has neither.
std::vector<int64_t> pack_region(const scheduler::Analysis& analysis, const ScheduleModel& model,
                                 const scheduler::InputPack& pack, int buffer);

// Index of the loop named `name` in `loops`, -1 if absent.
int position(const std::vector<LoopModel>& loops, const std::string& name);

}  // namespace ktune::cost_model::internal
