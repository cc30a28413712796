// How ktune computes a pipeline plainly, for its reference and for `show --check`: the
// trivial schedule (every Func at root over its whole region, every loop serial), changed
// only where that cannot run:
//   - a pure Func read over an unbounded region (an index that depends on data, clamped
//     on one side only) is inlined, since Halide cannot allocate it;
//   - a pure Func whose buffer would pass Halide's 2^31-byte limit is inlined when its
//     consumers evaluate fewer of its points than its region holds (a sparse read of a
//     large intermediate);
//   - when a buffer is still too large, the outputs are computed tile by tile: the same
//     trivially scheduled pipeline realized over crops of the outputs;
//   - when no tiling fits, Halide's large_buffers is used if the whole fits in memory.
// Every choice depends on the algorithm and the shapes only, never on a schedule under test.
#pragma once

#include <Halide.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "subgraphs/built_pipeline.h"

namespace ktune::subgraphs {

// What the buffers of one realization may take.
struct ReferenceLimits {
  double buffer_bytes = 2147483647.0;        // one buffer: Halide's limit without large_buffers
  double realization_bytes = 4.0 * (1 << 30);  // all of them together
};

struct ReferencePlan {
  std::set<std::string> inlined;  // Halide names of the Funcs left inline
  std::vector<int64_t> tile;      // per output dimension (Halide order, innermost first), one
                                  // tile's extent; empty when the outputs are realized whole
  bool large_buffers = false;     // buffers above 2^31 bytes allowed
  double peak_bytes = 0;          // what the buffers of one realization take together
  // "trivial", or what changed: "inlined d, w; tiles 128x16; large_buffers".
  std::string describe() const;
};

// The plan for computing `built` at the `outputs` regions. UserError, naming the Func and
// the dimension, when a Func with update definitions is read over an unbounded region, or
// when even the smallest tiles need more memory than the machine has.
ReferencePlan plan_reference(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs,
                             const std::map<std::string, Halide::Expr>& known, const ReferenceLimits& limits = {});

// The trivial schedule, leaving the plan's inlined Funcs inline.
void apply_reference_schedule(const BuiltPipeline& built, const ReferencePlan& plan);

// `target` with what the plan needs (large_buffers).
Halide::Target reference_target(const ReferencePlan& plan, Halide::Target target);

// Runs `built`, scheduled by apply_reference_schedule, on `inputs` (placed at the mins of
// `input_infos`), tile by tile when the plan says so; one tensor per output. Scalars must
// be bound already. Halide errors propagate as Halide::Error.
std::vector<Tensor> run_reference_plan(const BuiltPipeline& built, const ReferencePlan& plan,
                                       const std::vector<Tensor>& inputs, const std::vector<TensorInfo>& input_infos,
                                       const std::vector<TensorInfo>& outputs, const Halide::Target& target);

}  // namespace ktune::subgraphs
