// The accesses of one stage, followed through inlined Funcs and grouped by the buffer they
// touch (the stage's own store included), with their address steps along the innermost and
// vectorized loops; and the arithmetic the inlined Funcs add.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cost_model/internal/footprint_cache.h"
#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/schedule_model.h"

namespace ktune::cost_model::internal {

// Fills sm.groups, sm.ops and sm.loads; `inlined[f]` tells which Funcs are inlined, and
// `storage_orders` how packed inputs are stored (ScheduleModel::storage_orders).
void collect_accesses(const PipelineFacts& facts, const std::vector<bool>& inlined,
                      const std::map<int, std::vector<int>>& storage_orders, FootprintCache& cache, StageModel& sm);

// Index of the loop named `name` in `loops`, -1 if absent.
int position(const std::vector<LoopModel>& loops, const std::string& name);

}  // namespace ktune::cost_model::internal
