// The shape of a GPU stage schedule as a few numbers: how many threads of a block run
// along the innermost pure loop and along the second one, and a small unrolled split of
// the innermost reduction loop, serial in each thread. make_gpu_stage turns them into a
// StageSchedule: the thread pieces (x_i, y_i) map to GPU threads, the outer pieces and the
// remaining pure loops to up to 3 GPU blocks (for a kernel), the reduction loops innermost
// (inside an unrolled register tile of rows, when there is one).
//   kernel, x by 32 threads, y by 8:  order [k, x_i, y_i, x_o, y_o], threads [x_i, y_i], blocks [x_o, y_o]
//   ... and 4 rows per thread:        y -> y_t x y_r (4), y_t -> y_o x y_i (8), order [y_r, k, x_i, y_i, x_o, y_o]
#pragma once

#include <cstdint>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

struct GpuTilingChoice {
  int64_t threads_x = 32;       // threads along the innermost pure loop (its inner split piece)
  int64_t threads_y = 1;        // threads along the second pure loop; 1 = it is not a thread loop
  int64_t reduction_split = 0;  // unrolled inner piece of the innermost reduction loop; 0 = none
  int64_t rows_per_thread = 1;  // unrolled inner piece of the second pure loop, innermost: each
                                // thread computes this many rows (a register tile); 1 = none
};

// The heuristic's shape: 256 threads, 32 along the contiguous dimension (one warp,
// coalesced) and 8 rows (128 along a lone loop); a reduction split by 4 when it divides.
GpuTilingChoice heuristic_gpu_tiling(const StageAnalysis& stage);

// Builds the stage for `choice`. A kernel (a Func computed at root) gets block loops; a
// Func computed inside a consumer's block (`kernel` false) gets thread loops only, its
// outer pieces running serially in the block. Sizes that do not fit the loops shrink.
StageSchedule make_gpu_stage(const StageAnalysis& stage, const GpuTilingChoice& choice, bool kernel);

}  // namespace ktune::scheduler
