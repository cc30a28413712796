// A Subgraph defined by a JSON spec of fused ops (subgraphs/spec.h): the ops of the spec
// become one Halide pipeline, and the same ops evaluated in plain C++ with double
// accumulation are its reference.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "subgraphs/spec.h"
#include "subgraphs/subgraph.h"

namespace ktune::subgraphs {

class Op;
class HalideValue;

class SpecSubgraph : public Subgraph {
 public:
  // Validates every op (attributes, arity, shapes). Throws ktune::UserError.
  explicit SpecSubgraph(Spec spec);
  ~SpecSubgraph() override;

  std::string kind() const override { return "spec"; }
  BuiltPipeline build() const override;
  std::vector<Tensor> reference(const std::vector<Tensor>& inputs) const override;

  const Spec& spec() const { return spec_; }

 private:
  // Refuses an op whose output shape or FLOP count is out of range (overflowing paddings,
  // huge windows), before anything is built or stored.
  void check_derived_counts(const Op& op, const OpSpec& op_spec) const;
  // The op's Halide definition stored in its output type: converted by one more Func
  // when the op computes in another type (a bf16 softmax computes in f32).
  HalideValue build_stored(const Op& op, const std::vector<HalideValue>& args, const std::string& name) const;

  Spec spec_;
  std::vector<std::unique_ptr<Op>> ops_;  // one per spec op, validated
};

// Loads a spec file into a SpecSubgraph (UserError on bad input).
std::unique_ptr<SpecSubgraph> load_spec_subgraph(const std::string& path);

}  // namespace ktune::subgraphs
