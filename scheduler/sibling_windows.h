// Sibling Funcs computed in one loop nest (compute_with), as image experts fuse Harris's Ix
// and Iy: of two Funcs computed at the same place over the same variables, one takes the
// other's loops from a chosen loop outward, so the rows of the input both read are still in
// cache when the second reads them. The compute_with mutator draws such pairs; the
// heuristic's strip variants join each pair of sliding windows over a common producer.
#pragma once

#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// A Func (its position in the schedule) and the sibling it would join.
struct SiblingPair {
  size_t func = 0;
  size_t sibling = 0;
};

// Funcs that may join a sibling: both without updates and without compute_with, computed
// at the same location (not inlined), over the same pure variables.
std::vector<SiblingPair> sibling_pairs(const Schedule& s, const Analysis& a);

// The loops of `pair.sibling`'s pure stage (innermost first), where `pair.func` may join it;
// empty when the stage has no loop nest.
std::vector<std::string> sibling_loops(const Schedule& s, const Analysis& a, const SiblingPair& pair);

// `s` with `pair.func` computed with `pair.sibling` at `loop` (one of sibling_loops): the Func
// takes the sibling's splits and order for its pure stage.
Schedule computed_with_sibling(const Schedule& s, const SiblingPair& pair, const std::string& loop);

// Joins each sliding window (a Func stored around the loop it is computed in) that reads the
// same producer as an earlier window at the same place to that window, at the innermost
// serial loop of its pure stage (the one around the vector: the corner response's Iy with Ix
// at x_o), where the validators accept it. Returns whether anything changed.
bool fuse_sibling_windows(const Analysis& a, Schedule& s);

}  // namespace ktune::scheduler
