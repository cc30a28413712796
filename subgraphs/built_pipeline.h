// The Halide side of a Subgraph: a freshly built pipeline, its input parameters and
// output Funcs, and the helpers that run it on plain tensors. Include this only in the
// few translation units that need Halide.h.
#pragma once

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

struct BuiltPipeline {
  Halide::Pipeline pipeline;                         // the algorithm, unscheduled when built
  std::vector<Halide::Internal::Parameter> inputs;   // buffer parameters, in Subgraph::inputs() order
  std::vector<Halide::Func> outputs;                 // in Subgraph::outputs() order
};

// The BuiltPipeline of a pipeline built elsewhere (by a Generator): its outputs, and its
// buffer parameters in the order the pipeline first reads them.
BuiltPipeline built_from_pipeline(const Halide::Pipeline& pipeline);

// A deep copy of an unscheduled pipeline: new Funcs with the same names and definitions
// (input parameters are shared). Scheduling the copy leaves the original untouched.
Halide::Pipeline copy_pipeline(const Halide::Pipeline& pipeline);

// Every Func the outputs depend on (outputs included, input buffers and their wrapper
// Funcs excluded), each once, producers before consumers.
std::vector<Halide::Func> pipeline_funcs(const BuiltPipeline& built);

// Calls to an ImageParam go through a wrapper Func (`<name>_im`) that only reads the
// buffer. Returns the buffer parameter if `f` is such a wrapper, an undefined one if not.
Halide::Internal::Parameter wrapped_input(const Halide::Internal::Function& f);

// The region of every Func (keyed by its Halide name) that computing the outputs at
// their shapes requires: output boxes propagated through every definition with Halide's
// bounds rules, consumers before producers. Bounds are simplified (constants where the
// shapes are fixed).
std::map<std::string, Halide::Internal::Box> func_boxes(const BuiltPipeline& built,
                                                        const std::vector<TensorInfo>& outputs);

// The trivial schedule: every Func computed at root, every loop serial.
void apply_trivial_schedule(const BuiltPipeline& built);

// Runs the pipeline on `inputs` (copied into 128-byte-aligned buffers) and returns one
// tensor per output with the given shapes. Halide errors propagate as Halide::Error.
std::vector<Tensor> run_pipeline(const BuiltPipeline& built, const std::vector<Tensor>& inputs,
                                 const std::vector<TensorInfo>& outputs,
                                 const Halide::Target& target);

// A Halide buffer holding a copy of `t`, with Halide's innermost-first dimension order.
Halide::Buffer<float> to_halide_buffer(const Tensor& t);

}  // namespace ktune::subgraphs
