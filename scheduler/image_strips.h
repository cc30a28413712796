// The heuristic's schedule for image pipelines on a CPU, as image experts write it: the
// output runs in parallel strips of rows, vectorized along its rows, with small channel
// loops inside each row; every stencil producer at the output's resolution is a sliding
// window (computed per row of the strip, stored per strip), so that each of its rows is
// computed once and only a few rows stay live; pointwise stages stay inlined (those the
// output reads across channels they lack, and that cost more than a copy, are computed per
// row), and so do boundary conditions over the inputs. A chain whose
// halo grows past half a strip is cut into groups, each led by a Func computed at root in
// strips of its own.
#pragma once

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Strips per core of the heuristic. Fewer, taller strips compute less of their windows' halos
// again; more, shorter ones leave less of the last strip to one core. Which wins depends on
// the halo and on the cores (unsharp masks and blur chains run faster in 16 per core, a
// running maximum's 14-row halo in 4), so the tuner also measures the other counts first.
inline constexpr int kStripsPerCore = 4;
inline constexpr int kStripsPerCoreChoices[] = {2, 4, 8, 16};

// How a strip computes the stencil producers at its leader's resolution. kWindows slides
// each over the strip's rows (each row computed once, a few rows live); kWholeStrips computes
// each over the whole strip before its readers, and inlines a separable filter's first pass
// into its second. A strip recomputes the same halo either way; a window saves the strip's
// buffers but recomputes its bounds and enters its loops per row, which on rows of a few
// vectors costs more than it saves (a depth filter's 384-pixel rows: 1.5x slower).
enum class StripProducers { kWindows, kWholeStrips };

// The strips a heuristic schedule is built with.
struct StripChoice {
  int per_core = kStripsPerCore;
  StripProducers producers = StripProducers::kWindows;
};

// Rows per strip of a Func `rows` high on `cores` cores: about `per_core` strips per core, a
// power of two from 8 to 256.
int64_t strip_rows(int64_t rows, int cores, int per_core = kStripsPerCore);

// The pure stage of a Func computed at root in strips of `rows` rows: its first loop split
// by `lanes` and vectorized, its second split into strips run in parallel (the first two
// splits, in that order), its other loops (channels, at most 4 each) unrolled just outside
// the vector (channel_loops.h). nullopt when the stage does not have that shape (fewer than
// two pure loops, a larger third loop, an update).
std::optional<StageSchedule> strip_stage(const FuncAnalysis& func, int64_t lanes, int64_t rows);

// Rewrites `schedule` (the heuristic's) so that each image-shaped output, and each group
// leader of a long chain, runs in strips with its stencil producers as sliding windows (or
// computed per strip: `producers`), and with the per-pixel sums only it reads (non-local
// means' weighted sums) computed per strip. Funcs that are inlined, at a lower resolution
// (pyramid levels), other reductions, or hosted by another Func keep their places, about
// `per_core` strips per core; then large Funcs left at root that cost less to recompute than
// to store are inlined (root_inlining.h). Returns whether anything changed.
bool apply_image_strips(const Analysis& analysis, Schedule& schedule, int per_core = kStripsPerCore,
                        StripProducers producers = StripProducers::kWindows);

}  // namespace ktune::scheduler
