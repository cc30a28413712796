// The heuristic's last word on Funcs it left at root in an image pipeline: a large Func that
// costs its readers less to recompute than a pass through memory costs (a pointwise
// conversion, a copy, the first pass of a downsampling filter, a pyramid's base level read
// at two of its levels per pixel) is inlined into them, as image experts write pyramids.
#pragma once

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// How many times each point of Func `func` is computed if it is inlined, over all its readers
// (the most of them): the points a reader reads of it per iteration, times its iterations, over
// the points of `func`, at least 1, times the same for the reader where `schedule` inlines the
// reader too. A downsampling filter's 4 taps at stride 2 read each point twice; a table read at
// data per pixel, its lookups per entry; a stack of 8 levels read at 2 of them per pixel, once.
// A very large number where an update stage reads it.
double times_computed_inlined(const Analysis& analysis, const Schedule& schedule, int func);

// Inlines, from the inputs forward, each pure Func of `schedule` computed at root whose
// buffer is larger than a cache, at whose loops nothing is placed (no producer, no input's
// pack, no sibling computed with it), and whose arithmetic (with the producers inlined before
// it) times times_computed_inlined is small: it then makes no pass through memory of its own.
// A Func whose readers would grow too large stays. Returns how many it inlined.
int inline_cheap_roots(const Analysis& analysis, Schedule& schedule);

}  // namespace ktune::scheduler
