// Inputs as large as the schedule under test reads them. A schedule may read an input beyond
// the region the algorithm needs (an autoscheduler's tiles rounded up, a hand schedule's
// strips), and the Generator's own program allocates each input by a bounds query of the
// scheduled pipeline (RunGen with --estimate_all). The measuring child does the same: each
// seeded input is placed inside a buffer that covers both its own region and the region the
// scheduled pipeline asks for; the rest is zero. Values read there only feed points the
// output never shows, so the check against the reference is unchanged.
#pragma once

#include <Halide.h>

#include <vector>

#include "subgraphs/built_pipeline.h"

namespace ktune::measure::internal {

// Binds every input of `built` (compiled for `target`) to a buffer covering `seeded[i]` and
// what the pipeline reads to compute `outputs`; to `seeded[i]` itself where the target has no
// bounds query (no_bounds_query) or where covering the reads would take more than twice its
// bytes and 64 MiB (a read far out of bounds stays the pipeline's error). Throws Halide::Error
// when the bounds query fails.
void bind_inputs_covering_reads(const subgraphs::BuiltPipeline& built, const std::vector<Halide::Buffer<>>& seeded,
                                Halide::Realization& outputs, const Halide::Target& target);

}  // namespace ktune::measure::internal
