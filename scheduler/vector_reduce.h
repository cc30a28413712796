// Vectorized reductions (StageSchedule::vector_reduce): turning a stage's innermost
// reduction loop into a piece of 2 or 4 vectorized inside its pure vector, and which factor
// gives a dot-product instruction on a target. Shared by the heuristic's matmul template
// and the vector_reduce mutator.
#pragma once

#include <cstdint>

#include "scheduler/analysis.h"
#include "scheduler/loop_nest.h"
#include "scheduler/schedule.h"
#include "scheduler/target_info.h"

namespace ktune::scheduler {

// Splits the innermost reduction loop of `st` (whose loops are `nest`) by `factor`, puts
// the piece innermost and names it st.vector_reduce; false when there is no reduction loop
// that `factor` divides with iterations to spare. An inner piece is never split again (the
// structure validator refuses it): when the loop is the inner piece of a split of L by f, L
// is split by `factor` first and that split's outer piece by f / factor, leaving every other
// loop as it was.
bool add_vector_reduce(StageSchedule& st, const LoopNest& nest, int64_t factor);

// The piece that gives `func`'s update `stage` a dot-product instruction on `target` (Halide
// 14: avx512_sapphirerapids): 4 when every operand it reads (its own accumulator aside) is
// 8 bits wide (VNNI's vpdpbusd), 2 when every one is bf16 (vdpbf16ps); 0 otherwise.
int64_t dot_product_factor(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target);

}  // namespace ktune::scheduler
