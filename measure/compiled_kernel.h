// A candidate's JIT-compiled pipeline and the target it was compiled for, shared between
// the Builder that makes it and the Runner that executes it in a child process.
#pragma once

#include <Halide.h>

#include "subgraphs/built_pipeline.h"

namespace ktune::measure {

struct CompiledKernel {
  // The scheduled pipeline, already compiled with compile_jit(target).
  subgraphs::BuiltPipeline built;
  // The target it was compiled for; realize() must use the same one or Halide recompiles.
  Halide::Target target;
};

// The target named by `text`, or the host JIT target when `text` is empty. Throws
// ktune::UserError for a malformed string.
Halide::Target jit_target_from_string(const std::string& text);

}  // namespace ktune::measure
