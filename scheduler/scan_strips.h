// Recursive filters as image experts schedule them: a Func whose updates scan along its rows
// (its first dimension) while vectorized across rows is computed per strip of one vector of
// rows and stored transposed, the vectorized dimension innermost. Each step of the scan then
// loads and stores one dense vector, where the Func's default layout makes every lane of it a
// row apart (a gather and a scatter per step).
#pragma once

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Rewrites each such scan of `schedule`: its storage with the vectorized dimension innermost,
// its pure stage filling it in that order (the same vectors), and its host's strip loop split
// by one vector of rows where the host has enough rows for two strips per core. Funcs at root,
// inlined or whose updates vectorize different dimensions keep their schedules. Returns
// whether anything changed.
bool transpose_strip_scans(const Analysis& analysis, Schedule& schedule);

}  // namespace ktune::scheduler
