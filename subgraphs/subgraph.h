// A Subgraph is a named, fully shaped Halide algorithm that ktune tunes: its inputs and
// outputs, a factory that builds a fresh Halide pipeline on every call (schedules live
// inside Funcs, so every candidate needs its own), a schedule-independent reference,
// FLOP and byte counts, seeded inputs, and its workload key.
//
// Two kinds exist: SpecSubgraph (a JSON spec of fused ops, spec_subgraph.h) and
// GeneratorSubgraph (a user's Halide Generator loaded from a shared library,
// generator_loader.h), which is a PipelineSubgraph (any unscheduled Halide pipeline with
// estimates, pipeline_subgraph.h; the autoscheduler plugin uses it directly). This header does not include Halide.h; BuiltPipeline is defined
// in subgraphs/built_pipeline.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

struct BuiltPipeline;  // subgraphs/built_pipeline.h

// One loop of a stage, before scheduling.
struct LoopInfo {
  std::string name;    // Halide variable name: a pure var ("x") or a reduction var ("k$x")
  int64_t extent = 0;  // iterations, from the output estimates; -1 when not constant
};

// One stage (pure definition or update) of one Func.
struct StageInfo {
  std::string func;                     // Func name as the algorithm wrote it
  int stage = 0;                        // 0 = pure definition, k = update k-1
  std::vector<LoopInfo> pure_loops;     // innermost first, as Halide orders them
  std::vector<LoopInfo> reduction_loops;  // innermost first; empty for pure stages
  bool is_output = false;               // the Func is a pipeline output
};

// Identity of the algorithm, computed from its canonical form.
struct WorkloadKey {
  std::string key;         // 32 hex digits: definitions, types and shapes, not names
  std::string family_key;  // 32 hex digits: the same algorithm at any shape
  std::string shapes;      // the shape tuple, e.g. "x=[512, 768];w:u8=[768, 2048]->out=[512, 2048]" (the
                           // type where it is not f32)
};

class Subgraph {
 public:
  virtual ~Subgraph();

  // "spec" or "generator".
  virtual std::string kind() const = 0;
  // Builds a fresh, unscheduled pipeline. Every call returns new Funcs.
  virtual BuiltPipeline build() const = 0;
  // The reference outputs for `inputs` (one Tensor per input, in inputs() order).
  virtual std::vector<Tensor> reference(const std::vector<Tensor>& inputs) const = 0;

  const std::string& name() const { return name_; }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  // Scalar inputs and the values ktune runs them at (empty for specs).
  const std::vector<ScalarInfo>& scalars() const { return scalars_; }
  const WorkloadKey& key() const { return key_; }
  const std::vector<StageInfo>& stages() const { return stages_; }
  // Floating-point operations of one run (see Op::flops for the counting rule).
  double flops() const { return flops_; }
  // Compulsory bytes: every input read once and every output written once.
  double compulsory_bytes() const;
  // How often the subgraph runs in the user's model; tuning budgets follow it.
  double weight() const { return weight_; }

  // The range each input is seeded from ([lo, hi) for floats, [lo, hi] for integers).
  std::pair<double, double> input_range(size_t input) const;
  // Deterministic inputs for `seed`: the same on every machine and every call.
  std::vector<Tensor> make_inputs(uint64_t seed) const;

 protected:
  // Builds once to fill key_ and stages_. Subclasses call it at the end of construction.
  void finalize();

  std::string name_;
  std::vector<TensorInfo> inputs_;
  std::vector<std::pair<double, double>> input_ranges_;  // range of seeded inputs (random_tensor)
  // Appended to the workload key and to the readable shapes: the seeded ranges that differ
  // from the default (input_range.h); empty when none do, so earlier keys stay valid.
  std::string range_key_text_;
  std::string range_display_text_;
  std::vector<TensorInfo> outputs_;
  std::vector<ScalarInfo> scalars_;
  double flops_ = 0;
  double weight_ = 1.0;
  WorkloadKey key_;
  std::vector<StageInfo> stages_;
};

}  // namespace ktune::subgraphs
