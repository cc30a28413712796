// The shapes of stage schedules that work, as a few numbers: a vector width for the
// innermost pure loop (optionally a larger tile around it, optionally walked as column
// panels, outermost), a tile of the second pure
// loop (optionally unrolled), a split of the innermost reduction loop, where the
// reduction sits relative to the tiles, how many outer loops run in parallel, and
// rfactor. The sampler and the heuristic draw these numbers; make_stage turns them into
// a StageSchedule with conventional loop names (x_o, x_m, x_i, k_x_o, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// The widest vector make_stage vectorizes (4 AVX-512 vectors of f32).
inline constexpr int64_t kMaxVectorWidth = 64;

struct TilingChoice {
  int64_t vector_width = 0;     // inner piece of the innermost pure loop, vectorized; 0 = none
  int64_t inner_tile = 0;       // > vector_width: a middle level (tile / width iterations); 0 = none
  bool panels = false;          // the first loop's outer piece outermost: column panels of
                                // inner_tile (or of vector_width where there is no inner_tile),
                                // each walked through every row (a packed panel of a matmul's
                                // operand is reused down the rows)
  int64_t second_tile = 0;      // split of the second pure loop; 0 = none
  bool unroll_second = false;   // unroll that split's inner piece
  bool whole_rows = false;      // that inner piece outside the first loop's pieces: each row of
                                // a block of rows walked whole (not a vector column at a time)
  int64_t third_tile = 0;       // split of the third pure loop (a convolution's output channels); 0 = none
  bool unroll_third = false;    // unroll that split's inner piece: a register tile across it
  int64_t reduction_split = 0;  // split of the innermost reduction loop; 0 = none
  bool reduction_inside_tiles = true;  // updates: the reduction loops sit between the inner
                                       // (register) tile and the outer tiles; otherwise innermost
  bool reverse_reductions = false;  // associative updates with unsplit reduction loops: their order
                                    // reversed (a convolution's window inside its input channels)
  int parallel_loops = 0;       // outermost loops fused and run in parallel (one more where
                                // they all have one iteration); 0 = serial
  std::optional<bool> rfactor;  // rfactor the split reduction: false = outer piece (parallel),
                                // true = inner piece (vectorized partial results)
};

// Builds the stage schedule for `choice`; entries that do not fit the loops (a width
// larger than the extent, no second loop, ...) are dropped rather than invented, and a loop
// that carries a dependence is neither vectorized nor run in parallel.
StageSchedule make_stage(const StageAnalysis& stage, const TilingChoice& choice);

// Reduction loop `loop` of `stage` moved to the innermost position the reduction loops of
// `st` hold, the others in their order behind it (valid for an associative update, whose
// reduction loops Halide may reorder); `st` unchanged where its order lacks `loop`.
void move_innermost_among_reductions(const StageAnalysis& stage, const std::string& loop, StageSchedule& st);

}  // namespace ktune::scheduler
