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

// True when stage `stage` of Func `consumer` reads Func `producer` at two or more distinct
// points (a stencil): inlining the producer recomputes it for every point.
bool reads_a_stencil_of(const Analysis& analysis, int consumer, int stage, int producer);

}  // namespace ktune::scheduler
