// Which placements of a Func give Halide a buffer it can allocate: none but inline when its
// region has no bound along some dimension (an index that depends on data, clamped on one
// side at most), and not root when its whole region passes Halide's 2^31 - 1 byte limit for
// one buffer (ktune's schedules do not ask for large_buffers). The Space keeps to them and
// the buffer_size validator refuses what does not.
#pragma once

#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

inline constexpr double kMaxBufferBytes = 2147483647.0;

// Bytes of `fa`'s whole region (its extents times its element size).
double region_bytes(const FuncAnalysis& fa);

// Why Halide could not allocate `fa` computed at `compute`, or nullopt when it can (inline
// always can; an output is its caller's buffer).
std::optional<std::string> unallocatable(const FuncAnalysis& fa, const ComputeLocation& compute);

}  // namespace ktune::scheduler
