// Where a split may leave Halide's guarded tail (Tail in scheduler/schedule.h): the last
// tile of a pure loop of a Func without updates may shift inwards where the Func computes
// the loop's whole extent (at root, or per row of an image strip), unless that would walk
// a sliding window computed inside it backwards; the region of an
// intermediate Func may round up to whole tiles when nothing it reads along the loop can
// read an input out of its bounds (a padded input's clamped reads can). Both keep the inner
// loop's vectors whole (a 56-wide convolution row in 16-lane vectors). The validator asks
// tail_refusal; the heuristic and the sampler call choose_tails.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// True when `split` (one of stage.splits) splits a pure loop: only those have a choice of tail.
bool splits_pure_loop(const FuncAnalysis& func, const StageSchedule& stage, const LoopSplit& split);

// Why `split` of `stage` of `func` (scheduled as `schedule`, within `all`) may not use its
// tail strategy, or nullopt when it may.
std::optional<std::string> tail_refusal(const Analysis& analysis, const Schedule& all, const FuncAnalysis& func,
                                        const FuncSchedule& schedule, const StageSchedule& stage, const LoopSplit& split);

// The tails other than the guard that `split` (one of stage.splits, a pure loop's) allows,
// shift_inwards first.
std::vector<Tail> allowed_tails(const Analysis& analysis, const Schedule& all, const FuncAnalysis& func,
                                const FuncSchedule& schedule, const StageSchedule& stage, const LoopSplit& split);

// The pure variables the updates of `schedule` round up, each with the multiple its region
// must have for them (the least common multiple of their rounded tiles). Halide sizes a
// Func's buffer by what its pure definition computes; apply() aligns the region's extent to
// these multiples (align_extent), so that an update rounding further than the pure
// definition stays inside the buffer.
std::map<std::string, int64_t> update_round_ups(const FuncAnalysis& func, const FuncSchedule& schedule);

// Sets the tail of every split of a pure loop that does not divide its loop, lies in a Func
// computed per tile of a consumer, or lies in a Func that an accumulator is computed in: the
// first allowed of shift_inwards and round_up in the heuristic (rng null); in a draw, an
// allowed one or the guard at random.
void choose_tails(const Analysis& analysis, Schedule& schedule, Rng* rng);

}  // namespace ktune::scheduler
