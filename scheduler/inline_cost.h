// How much code a schedule's inlining makes: the arithmetic of a computed stage with the
// Funcs it inlines substituted into it, each distinct access of an inlined Func counted
// once (Halide's common-subexpression elimination keeps one copy of identical calls).
// Inlined stencils multiply: a 3-point stencil of a 3-point stencil of ... grows as
// 3^depth, and LLVM then spends minutes on one candidate. The validator bounds it and the
// heuristic keeps stencil producers out of line.
#pragma once

#include <cstdint>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// The most arithmetic operations one iteration of a computed stage may carry once its
// inlined producers are substituted, times the copies its unrolled loops make.
inline constexpr int64_t kMaxInlinedOps = 4096;

// Arithmetic of one iteration of stage `stage` of Func `func` with every Func that
// `schedule` inlines substituted (recursively), saturating at INT64_MAX / 2.
int64_t inlined_ops(const Analysis& analysis, const Schedule& schedule, int func, int stage);

// True when stage `stage` of Func `func`, or a Func it inlines (recursively), reads at an
// index that is not affine in its loops: a boundary condition such as mirror_interior, a
// lookup indexed by data. Vectorized, each lane of such a read is a scalar load.
bool gathers(const Analysis& analysis, const Schedule& schedule, int func, int stage);

// True when `reader` (a stage) reads Func `func` at an index that is data (a lookup table).
bool reads_at_data(const StageAnalysis& reader, int func);

// The widest vector stage `stage` of Func `func` may have under `schedule`: one native
// vector when it gathers (wider vectors only add scalar loads: the pyramid test Generator's
// first level took 24 s to compile at 64 f32 lanes through an inlined mirror_interior, 2.8 s
// at 16), else StageAnalysis::max_vector_width.
int widest_vector(const Analysis& analysis, const Schedule& schedule, int func, int stage);

// Narrows the split that makes each vectorized loop of `schedule` to widest_vector (the
// sampler decides a stage's width before the inlining of its producers).
void narrow_gathering_vectors(const Analysis& analysis, Schedule& schedule);

// True when stage `stage` of Func `consumer` reads Func `producer` at two or more distinct
// points (a stencil): inlining the producer recomputes it for every point.
bool reads_a_stencil_of(const Analysis& analysis, int consumer, int stage, int producer);

}  // namespace ktune::scheduler
