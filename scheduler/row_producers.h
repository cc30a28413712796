// The heuristic's rows for the grids of image pipelines (a bilateral grid's x, y, z, c):
// a Func at root with more than two pure loops runs in parallel over its rows, vectorized
// along them, with its small channel loops unrolled inside; and a producer its reader reads
// at the reader's own row (the grid's histogram and its blur along intensity, each read at
// the same grid row) is computed per row of that reader, inside its parallel rows, so each
// row is scattered, blurred and read while it is in cache, as image experts write it.
#pragma once

#include <optional>

#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Loops of one stage, rows (the second pure loop) outermost: a pure stage vectorized along
// its first loop by `lanes` where it is that long, its channel loops (third or later, at
// most 4) unrolled just outside the vector, the others between; an update with its channel
// loops unrolled innermost and its reduction loops next (a scatter into bins whose index is
// data stays scalar). The rows run in parallel with `parallel_rows`. nullopt for a stage with
// fewer than two pure loops.
std::optional<StageSchedule> rows_outermost_stage(const StageAnalysis& stage, int64_t lanes, bool parallel_rows);

// True when `func` scatters into a grid: an update writes along a dimension past its second
// at an index that is data (a bilateral grid's histogram of intensities per cell).
bool scatters_into_grid(const FuncAnalysis& func);

// Gives every Func at root with more than two pure loops and no strips (a loop past the
// second longer than a channel's) rows_outermost_stage in parallel, where it has at least
// two rows per core and no update.
void give_rows_to_grids(const Analysis& analysis, Schedule& schedule);

// Computes each Func at root that its one reader reads at the reader's own row (the second
// dimension indexed by the reader's second loop alone, unclamped, over as many rows; a Func
// with updates only where it scatters into a grid) per row of that reader, following readers
// that are inlined to the first that is not: at the reader's row loop where the reader is at
// root and walks whole rows inside it, else where the reader is computed. Readers are placed
// before their producers, so a chain of such Funcs ends up in one row.
void compute_row_producers_per_row(const Analysis& analysis, Schedule& schedule);

// Computes each Func at root whose one reader is an accumulator computed per tile of a Func
// at root, and that the accumulator reads at the slice its host's outermost loop walks (a
// depthwise convolution read by the 1x1 convolution after it, at the output's row), per
// iteration of that loop, not parallel, the Funcs computed inside it inlined: one row of it
// stays in cache for every tile of the row, where at root it would make a whole image.
// With `rng` (a draw), half the time. True when it moved one.
bool compute_accumulator_operands_per_slice(const Analysis& analysis, Schedule& schedule, Rng* rng = nullptr);

}  // namespace ktune::scheduler
