// The region a pipeline computes its outputs over once the outputs' own bound() calls apply.
// A Generator may bound an output in terms of its buffer, as whole tiles of it
// (`processed.bound(y, 0, (processed.height() / 32) * 32)`): the program the Generator
// ships then computes, and must be given, that region rather than its estimate.
#pragma once

#include <vector>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

// `outputs` (in Subgraph::outputs() order, every element of a Tuple-valued output its own
// tensor) with each dimension that an output Func of `built` bounds moved to its bound,
// evaluated with the output buffers at `outputs`; a bound that does not evaluate to a
// constant leaves its dimension as it was.
std::vector<TensorInfo> bounded_outputs(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs);

}  // namespace ktune::subgraphs
