// Which dimensions a stencil taps: where a stage reads a producer at more than one offset.
// Tells a separable filter's passes apart from a chain of stencils along one dimension.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"

namespace ktune::scheduler {

// Per dimension of `producer` (dimension 0 first), whether stage `reader` reads it at more
// than one offset along that dimension; empty where it does not read it, nullopt where an
// access is not affine.
std::optional<std::vector<bool>> tapped_dims(const StageAnalysis& reader, const std::string& producer);

// True when Func `pass` taps its producers along some dimensions and `reader` (a stage that
// reads it) taps it along others only: a separable filter's horizontal pass under its
// vertical one.
bool taps_across(const FuncAnalysis& pass, const StageAnalysis& reader);

}  // namespace ktune::scheduler
