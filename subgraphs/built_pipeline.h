// The Halide side of a Subgraph: a freshly built pipeline, its input parameters and
// output Funcs, and the helpers that run it on plain tensors. Include this only in the
// few translation units that need Halide.h.
#pragma once

#include <Halide.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

struct BuiltPipeline {
  Halide::Pipeline pipeline;                         // the algorithm, unscheduled when built
  std::vector<Halide::Internal::Parameter> inputs;   // buffer parameters, in Subgraph::inputs() order
  std::vector<Halide::Func> outputs;                 // in Subgraph::outputs() order (a Tuple-valued
                                                     // output is one Func and several outputs)
  std::vector<Halide::Internal::Parameter> scalars;  // scalar parameters, in Subgraph::scalars() order
};

// The BuiltPipeline of a pipeline built elsewhere (by a Generator): its outputs, and its
// buffer and scalar parameters in the order the pipeline first reads them.
BuiltPipeline built_from_pipeline(const Halide::Pipeline& pipeline);

// True when any Func of `built` computes something in floating point (an integer image
// filtered in f32): its integer outputs are rounded_from_float (subgraphs/compare.h).
bool computes_in_float(const BuiltPipeline& built);

// The Halide type of `dtype`, and the DType of a Halide type (nullopt for handles, 64-bit
// integers and other types ktune cannot seed or compare).
Halide::Type halide_type_of(DType dtype);
std::optional<DType> dtype_of(const Halide::Type& type);

// Binds the scalar parameter of `built` named like each of `scalars` to its value (an
// invariant failure when the pipeline has no parameter of that name).
void bind_scalars(const BuiltPipeline& built, const std::vector<ScalarInfo>& scalars);

// A deep copy of an unscheduled pipeline: new Funcs with the same names and definitions
// (input parameters are shared). Scheduling the copy leaves the original untouched.
Halide::Pipeline copy_pipeline(const Halide::Pipeline& pipeline);

// Every Func the outputs depend on (outputs included, input buffers and their wrapper
// Funcs excluded), each once, producers before consumers.
std::vector<Halide::Func> pipeline_funcs(const BuiltPipeline& built);

// Calls to an ImageParam go through a wrapper Func (`<name>_im`) that only reads the
// buffer, and BoundaryConditions wrap that wrapper once more in a lambda. Returns the
// buffer parameter if `f` is such a wrapper (of any depth), an undefined one if not.
Halide::Internal::Parameter wrapped_input(const Halide::Internal::Function& f);

// The Func through which the pipeline reads input buffer `input` (the wrapper an ImageParam
// or a Generator's Input<Buffer> makes, `<input>_im`): scheduling it, or its `in()`, places
// a copy of the input. Undefined when no Func reads that input.
Halide::Func input_wrapper(const BuiltPipeline& built, const std::string& input);

// The region of every Func (keyed by its Halide name) and of every input buffer (keyed by
// its parameter name) that computing the outputs at their shapes and mins requires: output
// boxes propagated through every definition with Halide's bounds rules, consumers before
// producers. Bounds are simplified (constants where the shapes are fixed); a bound that
// depends on data is the range of the indexing value's type, or undefined when unbounded.
// `known` (known_values) replaces buffer metadata and scalars where they appear (an RDom
// over an input's width, say) before the bounds are computed.
std::map<std::string, Halide::Internal::Box> func_boxes(const BuiltPipeline& built,
                                                        const std::vector<TensorInfo>& outputs,
                                                        const std::map<std::string, Halide::Expr>& known = {});

// The values ktune runs a pipeline with, by the names Halide's expressions use for them:
// every input's and output's "<buffer>.min.<d>", "<buffer>.extent.<d>" and
// "<buffer>.stride.<d>" (dense, innermost first), and every scalar's value. `inputs` may
// be empty (while inputs are still being sized). Substitute them with with_known_values.
std::map<std::string, Halide::Expr> known_values(const BuiltPipeline& built, const std::vector<TensorInfo>& inputs,
                                                 const std::vector<TensorInfo>& outputs,
                                                 const std::vector<ScalarInfo>& scalars);

// `e` with the variables named in `known` replaced (not simplified, so that it keeps its
// operations); undefined stays undefined.
Halide::Expr with_known_values(const Halide::Expr& e, const std::map<std::string, Halide::Expr>& known);

// The trivial schedule: every Func computed at root, every loop serial.
void apply_trivial_schedule(const BuiltPipeline& built);

// Runs the pipeline on `inputs` (copied into 128-byte-aligned buffers placed at the mins of
// `input_infos`) and returns one tensor per output with the given types, shapes and mins.
// Scalars must be bound already (bind_scalars). Halide errors propagate as Halide::Error.
std::vector<Tensor> run_pipeline(const BuiltPipeline& built, const std::vector<Tensor>& inputs,
                                 const std::vector<TensorInfo>& input_infos,
                                 const std::vector<TensorInfo>& outputs, const Halide::Target& target);

// A 128-byte-aligned Halide buffer holding a copy of `t`, with Halide's innermost-first
// dimension order, its first element at `mins` (outermost first; empty means 0).
Halide::Buffer<> to_halide_buffer(const Tensor& t, const std::vector<int64_t>& mins = {});

// An uninitialized buffer for `info` (its type, shape and mins).
Halide::Buffer<> make_halide_buffer(const TensorInfo& info);

// The elements of `b` (dense, innermost-first) as a row-major tensor.
Tensor tensor_from_buffer(const Halide::Buffer<>& b);

}  // namespace ktune::subgraphs
