// The arithmetic of a pipeline that is not made of ktune's ops (a user's Generator): each
// stage's operations counted in its definition, times the points the stage computes. The
// count is what `ktune show` and the roofline divide by; it follows Op::flops in counting
// one operation per add, subtract, multiply, divide, modulo, min, max, select and math
// call (exp, sqrt, ...), of any type: an image pipeline's integer arithmetic counts too.
// Index arithmetic (inside the arguments of a Func or buffer access) and casts do not.
#pragma once

#include <vector>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/subgraph.h"

namespace ktune::subgraphs {

// Operations in one value expression, index arithmetic excluded.
double arithmetic_in(const Halide::Expr& value);

// Operations of one run of `built`, whose stages are `stages` (from analyze_pipeline of the
// same pipeline: producers first, the same order as pipeline_funcs). A stage whose extents
// are not constant counts nothing.
double count_pipeline_arithmetic(const BuiltPipeline& built, const std::vector<StageInfo>& stages);

}  // namespace ktune::subgraphs
