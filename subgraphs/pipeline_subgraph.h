// A Subgraph whose algorithm arrives as an unscheduled Halide::Pipeline: a user's
// Generator (generator_loader.h), or the pipeline a Generator hands to an autoscheduler
// (ktune's autoscheduler plugin). Both read inputs, shapes and the workload key the same
// way, so a pipeline tuned through `ktune tune --generator` is found again when the same
// Generator is built with the plugin:
//   - inputs: the buffer parameters, in the order the pipeline first reads them, of any
//     type ktune can seed (dtype.h); each sized and placed to cover both where the outputs
//     read it (bounds inference from the outputs' region) and its estimates (as the
//     Generator's own RunGen --estimate_all allocates it), a constraint the pipeline sets
//     on it (set_bounds) winning;
//   - outputs: every output Func (a Tuple-valued one is one output per element), with the
//     region of its estimates, mins included, or of its buffer's constraints, or of the
//     Func's own bound() calls (output_bounds.h);
//   - scalars: every scalar parameter (Input<float>, Input<int>, Input<bool>) at the value
//     given for it, else at its estimate; UserError when it has neither;
//   - seeded data: each input buffer drawn from the range given for it, else the default
//     for image pipelines (input_range.h).
// The scalar values, and input ranges other than the default, are part of the workload key.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "subgraphs/input_range.h"
#include "subgraphs/subgraph.h"

namespace Halide {
class Pipeline;
}

namespace ktune::subgraphs {

class PipelineSubgraph : public Subgraph {
 public:
  // Returns a fresh unscheduled pipeline of the same algorithm on every call.
  using PipelineFactory = std::function<Halide::Pipeline()>;

  // Scalar values by parameter name, as text ("0.25", "3", "true").
  using ScalarValues = std::map<std::string, std::string>;

  // `where` names the source in error messages (a library path); `what` names the
  // algorithm in them ("generator blur").
  PipelineSubgraph(std::string name, PipelineFactory factory, std::string where, std::string what,
                   const ScalarValues& scalar_values = {}, const InputRanges& input_ranges = {});

  std::string kind() const override { return "pipeline"; }
  BuiltPipeline build() const override;
  // The same algorithm run with the trivial schedule where it fits (no C++ reference
  // exists; reference_plan.h says what changes where it does not);
  // the result for the last inputs is kept, so repeated checks compute it once.
  std::vector<Tensor> reference(const std::vector<Tensor>& inputs) const override;

 protected:
  PipelineSubgraph() = default;
  // Builds once, reads the inputs, outputs and scalars and computes the key.
  void init(std::string name, PipelineFactory factory, std::string where, std::string what,
            const ScalarValues& scalar_values, const InputRanges& input_ranges = {});

  [[noreturn]] void fail_build(const std::string& message) const;

 private:
  void read_outputs(const BuiltPipeline& built);
  void read_inputs(const BuiltPipeline& built);
  void read_scalars(const BuiltPipeline& built, const ScalarValues& values);
  void set_input_ranges(const InputRanges& given);

  PipelineFactory factory_;
  std::string where_;  // source named in errors (library path, or "autoscheduler")
  std::string what_;   // the algorithm named in errors ("generator blur")
  mutable std::mutex reference_mutex_;
  mutable std::string reference_inputs_hash_;   // identity of the inputs of the cached result
  mutable std::vector<Tensor> reference_outputs_;
};

}  // namespace ktune::subgraphs
