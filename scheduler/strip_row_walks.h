// Strips whose windows lie at a lower resolution than the Func hosting them (the
// half-resolution planes of a Bayer mosaic, read at y / 2): Halide slides such a window
// only when its host's rows are walked a whole ratio at a time, aligned to the strip's
// first row. Walked row by row, each output row of camera_pipe computed 6 rows of its
// denoised input and 3 of its planes, where 1 of each was new.
#pragma once

#include <string>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// How many rows of `host` a row of `window` spans: 2 for a plane at half its resolution,
// 1 at its own (rounded to the nearest whole ratio).
int64_t vertical_ratio(const FuncAnalysis& window, const FuncAnalysis& host);

// The rows of `leader` one iteration of its row loop `row` should take: the largest vertical
// ratio among the windows it hosts at `row`, 1 when all are at its resolution.
int64_t rows_per_walk(const Analysis& analysis, const Schedule& schedule, int leader, const std::string& row);

// Splits `leader`'s row loop `row` into walks of `rows` rows (when its strips hold whole
// walks) and moves what it computes at `row` to the walk, widening the windows' folds to the
// rows a walk reads. Returns the loop its windows are now computed at.
std::string walk_rows(const Analysis& analysis, Schedule& schedule, int leader, const std::string& row, int64_t rows);

}  // namespace ktune::scheduler
