#include "subgraphs/pipeline_subgraph.h"

#include "common/error.h"
#include "common/hash.h"
#include "subgraphs/built_pipeline.h"

namespace ktune::subgraphs {

namespace HI = Halide::Internal;

PipelineSubgraph::PipelineSubgraph(std::string name, PipelineFactory factory, std::string where,
                                   std::string what) {
  init(std::move(name), std::move(factory), std::move(where), std::move(what));
}

void PipelineSubgraph::fail_build(const std::string& message) const {
  throw UserError(format_user_error(where_, "", what_ + message));
}

void PipelineSubgraph::init(std::string name, PipelineFactory factory, std::string where, std::string what) {
  name_ = std::move(name);
  factory_ = std::move(factory);
  where_ = std::move(where);
  what_ = what.empty() ? "" : std::move(what) + ": ";
  const BuiltPipeline built = build();
  for (const HI::Parameter& p : built.inputs) {
    if (p.type() != Halide::Float(32)) {
      fail_build("input \"" + p.name() + "\" has type " + Halide::type_to_c_type(p.type(), false) +
           "; ktune supports float32 buffers");
    }
    TensorInfo info{p.name(), DType::kF32, {}};
    for (int d = p.dimensions() - 1; d >= 0; --d) {
      const Halide::Expr e = p.extent_constraint_estimate(d);
      const int64_t* v = e.defined() ? HI::as_const_int(HI::simplify(e)) : nullptr;
      if (!v || *v <= 0) {
        fail_build("input \"" + p.name() + "\" has no estimate for dimension " + std::to_string(d) +
             "; call input.set_estimates(...) so ktune knows its shape");
      }
      info.shape.push_back(*v);
    }
    inputs_.push_back(info);
    input_ranges_.emplace_back(-1.0, 1.0);
  }
  for (const Halide::Func& f : built.outputs) {
    const HI::Function fn = f.function();
    if (fn.output_types().size() != 1 || fn.output_types()[0] != Halide::Float(32)) {
      fail_build("output \"" + f.name() + "\" is not a float32 buffer; ktune supports float32 outputs");
    }
    // Halide appends "$N" to a name created twice in one process; the name is the user's.
    TensorInfo info{f.name().substr(0, f.name().find('$')), DType::kF32, {}};
    for (int d = static_cast<int>(fn.args().size()) - 1; d >= 0; --d) {
      int64_t extent = -1;
      for (const HI::Bound& b : fn.schedule().estimates()) {
        if (b.var == fn.args()[d] && b.extent.defined()) {
          if (const int64_t* v = HI::as_const_int(HI::simplify(b.extent))) extent = *v;
        }
      }
      if (extent <= 0) {
        fail_build("output \"" + f.name() + "\" has no estimate for dimension " + std::to_string(d) +
             "; call output.set_estimates(...) so ktune knows its shape");
      }
      info.shape.push_back(extent);
    }
    outputs_.push_back(info);
  }
  finalize();
}

BuiltPipeline PipelineSubgraph::build() const { return built_from_pipeline(factory_()); }

std::vector<Tensor> PipelineSubgraph::reference(const std::vector<Tensor>& inputs) const {
  std::string identity;
  for (const Tensor& t : inputs) {
    identity += stable_hash_hex(std::string_view(reinterpret_cast<const char*>(t.data.data()),
                                                 t.data.size() * sizeof(float)));
  }
  std::lock_guard<std::mutex> lock(reference_mutex_);
  if (identity == reference_inputs_hash_) return reference_outputs_;
  const BuiltPipeline built = build();
  apply_trivial_schedule(built);
  reference_outputs_ = run_pipeline(built, inputs, outputs_, Halide::get_jit_target_from_environment());
  reference_inputs_hash_ = identity;
  return reference_outputs_;
}

}  // namespace ktune::subgraphs
