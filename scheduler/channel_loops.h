// Channel loops: the short pure loops past a stage's second (RGB, a Bayer mosaic's four
// planes, a grid's value and weight). Image experts unroll them just outside the vector of
// each row: a definition that selects on the channel (mux) then computes one expression per
// unrolled copy instead of every channel's and a select, which is what a channel loop that
// is not unrolled computes for each of its iterations.
#pragma once

#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// The most iterations a channel loop has (RGBA).
inline constexpr int64_t kMaxChannels = 4;

// The pure loops of `stage` past its second, split into channel loops and the others,
// each list innermost first.
void loops_past_rows(const StageAnalysis& stage, std::vector<std::string>& channels, std::vector<std::string>& others);

// Splits each of `channels` (loops of `stage`) by its own extent and unrolls the inner
// piece, which has a constant extent wherever the Func is computed (the channel loop itself
// may not: a boundary condition read across mirrored channels); the outer piece has one
// iteration where the channels are those of the estimates. Returns the pieces to order,
// innermost first (each inner piece followed by its outer one).
std::vector<std::string> unrolled_channels(const StageAnalysis& stage, const std::vector<std::string>& channels,
                                           StageSchedule& st);

}  // namespace ktune::scheduler
