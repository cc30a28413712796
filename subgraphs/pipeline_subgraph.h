// A Subgraph whose algorithm arrives as an unscheduled Halide::Pipeline: a user's
// Generator (generator_loader.h), or the pipeline a Generator hands to an autoscheduler
// (ktune's autoscheduler plugin). Both read inputs, shapes and the workload key the same
// way, so a pipeline tuned through `ktune tune --generator` is found again when the same
// Generator is built with the plugin:
//   - inputs: the buffer parameters, in the order the pipeline first reads them;
//   - shapes: the estimates set on every input and output (UserError when one is missing).
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "subgraphs/subgraph.h"

namespace Halide {
class Pipeline;
}

namespace ktune::subgraphs {

class PipelineSubgraph : public Subgraph {
 public:
  // Returns a fresh unscheduled pipeline of the same algorithm on every call.
  using PipelineFactory = std::function<Halide::Pipeline()>;

  // `where` names the source in error messages (a library path); `what` names the
  // algorithm in them ("generator blur").
  PipelineSubgraph(std::string name, PipelineFactory factory, std::string where, std::string what);

  std::string kind() const override { return "pipeline"; }
  BuiltPipeline build() const override;
  // The same algorithm run with the trivial schedule (no C++ reference exists);
  // the result for the last inputs is kept, so repeated checks compute it once.
  std::vector<Tensor> reference(const std::vector<Tensor>& inputs) const override;

 protected:
  PipelineSubgraph() = default;
  // Builds once, reads the inputs and shapes from the estimates and computes the key.
  void init(std::string name, PipelineFactory factory, std::string where, std::string what);

  [[noreturn]] void fail_build(const std::string& message) const;

 private:
  PipelineFactory factory_;
  std::string where_;  // source named in errors (library path, or "autoscheduler")
  std::string what_;   // the algorithm named in errors ("generator blur")
  mutable std::mutex reference_mutex_;
  mutable std::string reference_inputs_hash_;   // identity of the inputs of the cached result
  mutable std::vector<Tensor> reference_outputs_;
};

}  // namespace ktune::subgraphs
