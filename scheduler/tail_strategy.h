// Where a split may leave Halide's guarded tail (Tail in scheduler/schedule.h): the last
// tile of a pure loop of a root Func without updates may shift inwards, the region of an intermediate Func
// that reads no input along the loop may round up to whole tiles. Both keep the inner
// loop's vectors whole (a 56-wide convolution row in 16-lane vectors). The validator asks
// tail_refusal; the heuristic and the sampler call choose_tails.
#pragma once

#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Why `split` of `stage` of `func` may not use its tail strategy, or nullopt when it may.
std::optional<std::string> tail_refusal(const FuncAnalysis& func, const FuncSchedule& schedule, const StageSchedule& stage,
                                        const LoopSplit& split);

// Sets the tail of every split of a pure loop that does not divide its loop (or lies in a
// Func computed per tile of a consumer): the first allowed of shift_inwards and round_up in
// the heuristic (rng null); in a draw, an allowed one or the guard at random.
void choose_tails(const Analysis& analysis, Schedule& schedule, Rng* rng);

}  // namespace ktune::scheduler
