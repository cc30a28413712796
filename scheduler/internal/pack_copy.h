// How apply() lays out and walks a packed copy of an input (InputPack, scheduler/schedule.h):
// stored and copied in the pack's dimension order, its innermost loop vectorized (in
// vector-wide columns where the copy transposes), at root its outermost loop with more than
// one iteration in parallel. Each Halide call is made on the copy and written as C++ text.
// Include only where Halide.h is needed (internal/applier.cc).
#pragma once

#include <Halide.h>

#include <ostream>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Schedules the loops of `copy` (the Func `input.in()` made for `pack`, its compute location
// set already), printed as the C++ identifier `id` onto `text`. Throws Halide::CompileError
// for a storage dimension `input` lacks.
void schedule_pack_copy(Halide::Func& copy, const std::string& id, const InputPack& pack, const InputAnalysis& input,
                        std::ostream& text);

}  // namespace ktune::scheduler
