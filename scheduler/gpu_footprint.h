// The part of a producer that one iteration of a consumer's loop reads: the bounding box,
// from isl, of the image of the consumer's iterations inside that loop under the access
// relations (through inlined Funcs). GPU validators size shared-memory staging with it:
// a producer computed at a block loop holds this box for the whole block.
#pragma once

#include <cstdint>
#include <optional>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Elements of Func `producer` that one iteration of `at` (a kAt location) reads, or
// nullopt when isl cannot tell (non-affine accesses, isl quota). Loops inside `at` span
// their split extents; each original loop spans at most its own extent.
std::optional<int64_t> producer_footprint(const Analysis& analysis, const Schedule& schedule, int producer,
                                          const ComputeLocation& at);

}  // namespace ktune::scheduler
