#include "subgraphs/spec_subgraph.h"

#include <cmath>
#include <map>

#include "common/check.h"
#include "common/error.h"
#include "common/hash.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/op.h"

namespace ktune::subgraphs {

void SpecSubgraph::check_derived_counts(const Op& op, const OpSpec& op_spec) const {
  const std::string problem = shape_problem(op.output_shape());
  if (!problem.empty()) {
    throw UserError(format_user_error(spec_.file, op_spec.path, "the output \"" + op_spec.output + "\": " + problem));
  }
  const double flops = op.flops();
  if (!std::isfinite(flops) || flops < 0 || !std::isfinite(flops_ + flops)) {
    throw UserError(format_user_error(spec_.file, op_spec.path, "the op's FLOP count is not a finite number"));
  }
}

SpecSubgraph::SpecSubgraph(Spec spec) : spec_(std::move(spec)) {
  name_ = spec_.name;
  weight_ = spec_.weight;
  std::map<std::string, Shape> shapes;
  std::map<std::string, DType> dtypes;
  std::map<std::string, bool> rounded_from_float;
  for (const InputSpec& in : spec_.inputs) {
    inputs_.push_back(in.info);
    input_ranges_.emplace_back(in.range_lo, in.range_hi);
    shapes[in.info.name] = in.info.shape;
    dtypes[in.info.name] = in.info.dtype;
  }
  // Canonical form of the op graph without shapes: values named by position.
  std::map<std::string, std::string> positional;
  for (size_t i = 0; i < spec_.inputs.size(); ++i) positional[spec_.inputs[i].info.name] = "in" + std::to_string(i);
  nlohmann::json family = nlohmann::json::array();
  for (size_t i = 0; i < spec_.ops.size(); ++i) {
    const OpSpec& op_spec = spec_.ops[i];
    OpCall call{op_spec, {}, {}};
    for (const std::string& name : op_spec.inputs) {
      call.input_shapes.push_back(shapes.at(name));
      call.input_dtypes.push_back(dtypes.at(name));
    }
    std::unique_ptr<Op> op = make_op(call, spec_.file);
    check_derived_counts(*op, op_spec);
    shapes[op_spec.output] = op->output_shape();
    dtypes[op_spec.output] = op->output_dtype();
    // An integer stored from float arithmetic may round differently by one (compare.h).
    const bool float_input = !call.input_dtypes.empty() && is_float(call.input_dtypes[0]);
    rounded_from_float[op_spec.output] = !is_float(op->output_dtype()) &&
                                         (is_float(op->compute_dtype()) || (op_spec.op == "cast" && float_input));
    positional[op_spec.output] = "t" + std::to_string(i);
    nlohmann::json entry = {{"op", op_spec.op}, {"attrs", op->canonical_attributes}};
    // Typed ops are another algorithm; f32 ones keep the family keys they always had.
    if (op->output_dtype() != DType::kF32) entry["dtype"] = to_string(op->output_dtype());
    for (const std::string& name : op_spec.inputs) entry["inputs"].push_back(positional.at(name));
    family.push_back(entry);
    flops_ += op->flops();
    ops_.push_back(std::move(op));
  }
  nlohmann::json outs = nlohmann::json::array();
  for (const std::string& name : spec_.outputs) {
    TensorInfo out{name, dtypes.at(name), shapes.at(name), {}};
    out.rounded_from_float = rounded_from_float[name];
    outputs_.push_back(out);
    outs.push_back(positional.at(name));
  }
  key_.family_key = stable_hash_hex("ktune-spec-family-v1\n" + family.dump() + outs.dump());
  finalize();
}

SpecSubgraph::~SpecSubgraph() = default;

HalideValue SpecSubgraph::build_stored(const Op& op, const std::vector<HalideValue>& args, const std::string& name) const {
  if (op.compute_dtype() == op.output_dtype()) return op.build(args, name);
  // The op computes under its own name with a suffix; `name` stores its result converted.
  const HalideValue computed = op.build(args, name + "_" + to_string(op.compute_dtype()));
  const DType stored = op.output_dtype();
  Halide::Func f = define_func(name, computed.rank(), [&](const std::vector<Halide::Expr>& i) {
    return convert_to(stored, computed.raw(i));
  });
  return HalideValue::of_func(f, computed.shape(), stored);
}

BuiltPipeline SpecSubgraph::build() const {
  BuiltPipeline built;
  std::map<std::string, HalideValue> values;
  for (const InputSpec& in : spec_.inputs) {
    const int rank = static_cast<int>(in.info.shape.size());
    Halide::ImageParam param(halide_type_of(in.info.dtype), rank, in.info.name);
    for (int d = 0; d < rank; ++d) {
      const int extent = static_cast<int>(in.info.shape[rank - 1 - d]);
      param.dim(d).set_bounds(0, extent).set_estimate(0, extent);
    }
    values.emplace(in.info.name, HalideValue::of_input(param, in.info.shape, in.info.dtype));
    built.inputs.push_back(param.parameter());
  }
  for (size_t i = 0; i < spec_.ops.size(); ++i) {
    const OpSpec& op_spec = spec_.ops[i];
    std::vector<HalideValue> args;
    for (const std::string& name : op_spec.inputs) args.push_back(values.at(name));
    values.emplace(op_spec.output, build_stored(*ops_[i], args, op_spec.output));
  }
  std::vector<Halide::Func> outputs;
  for (const TensorInfo& out : outputs_) {
    Halide::Func f = values.at(out.name).func();
    const int rank = static_cast<int>(out.shape.size());
    Halide::Region estimates;
    for (int d = 0; d < rank; ++d) {
      const int extent = static_cast<int>(out.shape[rank - 1 - d]);
      estimates.emplace_back(0, extent);
      f.output_buffer().dim(d).set_bounds(0, extent);
    }
    f.set_estimates(estimates);
    outputs.push_back(f);
  }
  built.outputs = outputs;
  built.pipeline = Halide::Pipeline(outputs);
  return built;
}

std::vector<Tensor> SpecSubgraph::reference(const std::vector<Tensor>& inputs) const {
  KTUNE_CHECK(inputs.size() == spec_.inputs.size());
  std::map<std::string, RefTensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) values[spec_.inputs[i].info.name] = to_ref(inputs[i]);
  for (size_t i = 0; i < spec_.ops.size(); ++i) {
    std::vector<const RefTensor*> args;
    for (const std::string& name : spec_.ops[i].inputs) args.push_back(&values.at(name));
    RefTensor result = ops_[i]->reference(args);
    // What the kernel stores: rounded (and saturated) to the op's output type.
    if (ops_[i]->output_dtype() != DType::kF32) {
      for (double& v : result.data) v = round_to(ops_[i]->output_dtype(), v);
    }
    values[spec_.ops[i].output] = std::move(result);
  }
  std::vector<Tensor> outputs;
  for (const TensorInfo& out : outputs_) outputs.push_back(to_typed(values.at(out.name), out.dtype));
  return outputs;
}

std::unique_ptr<SpecSubgraph> load_spec_subgraph(const std::string& path) {
  return std::make_unique<SpecSubgraph>(parse_spec_file(path));
}

}  // namespace ktune::subgraphs
