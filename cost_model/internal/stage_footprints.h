// The footprints of a stage's accesses at every loop level (the tiles its loops make), cut
// to one realization where a compute_at producer is recomputed into the same buffer, and the
// lines a compute_at producer touches over consecutive realizations of its host.
#pragma once

#include <vector>

#include "cost_model/internal/footprint_cache.h"
#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/schedule_model.h"
#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::cost_model::internal {

// Fills AccessGroupModel::levels of every group of `sm`.
void add_footprints(FootprintCache& cache, StageModel& sm);

// Cuts the levels beyond the compute_at loop of the producers `sm` hosts (keeping the uncut
// ones in AccessGroupModel::regions).
void reuse_producer_buffers(const scheduler::Analysis& analysis,
                            const std::vector<const scheduler::FuncSchedule*>& sched, StageModel& sm);

// Fills sm.host_lines and sm.host_extents for a stage of a compute_at Func whose host stage
// is `host`.
void add_host_lines(const scheduler::FuncAnalysis& fa, const scheduler::StageAnalysis& sa, const StageFacts& st,
                    const StageModel& host, FootprintCache& cache, StageModel& sm);

}  // namespace ktune::cost_model::internal
