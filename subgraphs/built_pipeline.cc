#include "subgraphs/built_pipeline.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "common/check.h"
#include "common/error.h"

namespace ktune::subgraphs {
namespace {

using Halide::Internal::Call;
using Halide::Internal::Function;

// Collects the Functions called from an expression, in visiting order.
class CalledFunctions : public Halide::Internal::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  std::vector<Function> found;

 protected:
  void visit(const Call* op) override {
    IRGraphVisitor::visit(op);
    if (op->call_type == Call::Halide && op->func.defined()) found.emplace_back(op->func);
  }
};

void visit_definition_calls(const Halide::Internal::Definition& def, CalledFunctions& v) {
  for (const Halide::Expr& e : def.args()) e.accept(&v);
  for (const Halide::Expr& e : def.values()) e.accept(&v);
}

void post_order(const Function& f, std::set<std::string>& seen, std::vector<Function>& order) {
  if (!seen.insert(f.name()).second || wrapped_input(f).defined()) return;
  CalledFunctions calls;
  visit_definition_calls(f.definition(), calls);
  for (const auto& u : f.updates()) visit_definition_calls(u, calls);
  for (const Function& g : calls.found) post_order(g, seen, order);
  order.push_back(f);
}

// Collects the buffer and scalar parameters a pipeline reads, each once, in visiting order,
// and the name under which each input buffer is called (the buffer's own name, or the name
// of a wrapper Func such as a BoundaryConditions lambda).
class InputCollector : public Halide::Internal::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  std::vector<Halide::Internal::Parameter> params;
  std::vector<Halide::Internal::Parameter> scalars;
  std::map<std::string, std::string> callee_to_param;

  void visit_definition(const Halide::Internal::Definition& def) {
    for (const Halide::Expr& e : def.values()) e.accept(this);
    for (const Halide::Expr& e : def.args()) e.accept(this);
    for (const Halide::Internal::ReductionVariable& rv : def.schedule().rvars()) {
      rv.min.accept(this);
      rv.extent.accept(this);
    }
    if (def.predicate().defined()) def.predicate().accept(this);
  }

 protected:
  void visit(const Call* op) override {
    IRGraphVisitor::visit(op);
    Halide::Internal::Parameter param;
    if (op->call_type == Call::Image) param = op->param;
    if (op->call_type == Call::Halide && op->func.defined()) param = wrapped_input(Function(op->func));
    if (!param.defined() || !param.is_buffer()) return;
    callee_to_param[op->name] = param.name();
    add(params, param);
  }

  void visit(const Halide::Internal::Variable* op) override {
    if (op->param.defined() && !op->param.is_buffer()) add(scalars, op->param);
  }

 private:
  static void add(std::vector<Halide::Internal::Parameter>& list, const Halide::Internal::Parameter& p) {
    for (const Halide::Internal::Parameter& q : list) {
      if (q.name() == p.name()) return;
    }
    list.push_back(p);
  }
};

// Whether any expression it is shown has a floating-point type.
class FloatFinder : public Halide::Internal::IRGraphVisitor {
 public:
  using IRGraphVisitor::include;
  bool found = false;

 protected:
  void include(const Halide::Expr& e) override {
    if (e.type().is_float()) found = true;
    if (!found) IRGraphVisitor::include(e);
  }
};

InputCollector collect_inputs(const std::vector<Halide::Func>& funcs) {
  InputCollector inputs;
  for (const Halide::Func& f : funcs) {
    inputs.visit_definition(f.function().definition());
    for (const auto& u : f.function().updates()) inputs.visit_definition(u);
  }
  return inputs;
}

}  // namespace

BuiltPipeline built_from_pipeline(const Halide::Pipeline& pipeline) {
  BuiltPipeline built;
  built.pipeline = pipeline;
  built.outputs = built.pipeline.outputs();
  const InputCollector inputs = collect_inputs(pipeline_funcs(built));
  built.inputs = inputs.params;
  built.scalars = inputs.scalars;
  return built;
}

bool computes_in_float(const BuiltPipeline& built) {
  FloatFinder finder;
  for (const Halide::Func& f : pipeline_funcs(built)) {
    std::vector<const Halide::Internal::Definition*> defs = {&f.function().definition()};
    for (const auto& u : f.function().updates()) defs.push_back(&u);
    for (const Halide::Internal::Definition* def : defs) {
      for (const Halide::Expr& e : def->values()) e.accept(&finder);
    }
  }
  return finder.found;
}

Halide::Type halide_type_of(DType dtype) {
  switch (dtype) {
    case DType::kBool: return Halide::Bool();
    case DType::kU8: return Halide::UInt(8);
    case DType::kI8: return Halide::Int(8);
    case DType::kU16: return Halide::UInt(16);
    case DType::kI16: return Halide::Int(16);
    case DType::kU32: return Halide::UInt(32);
    case DType::kI32: return Halide::Int(32);
    case DType::kF16: return Halide::Float(16);
    case DType::kBF16: return Halide::BFloat(16);
    case DType::kF32: return Halide::Float(32);
    case DType::kF64: return Halide::Float(64);
  }
  return Halide::Float(32);
}

std::optional<DType> dtype_of(const Halide::Type& type) {
  if (type.is_vector()) return std::nullopt;
  for (DType d : all_dtypes()) {
    if (halide_type_of(d) == type) return d;
  }
  return std::nullopt;
}

void bind_scalars(const BuiltPipeline& built, const std::vector<ScalarInfo>& scalars) {
  for (const ScalarInfo& scalar : scalars) {
    const auto param = std::find_if(built.scalars.begin(), built.scalars.end(),
                                    [&](const Halide::Internal::Parameter& p) { return p.name() == scalar.name; });
    KTUNE_CHECK(param != built.scalars.end()) << "the pipeline has no scalar parameter " << scalar.name;
    Halide::Internal::Parameter p = *param;
    halide_scalar_value_t v{};
    const double x = round_to(scalar.dtype, scalar.value);
    switch (scalar.dtype) {
      case DType::kBool: v.u.b = x != 0; break;
      case DType::kU8: v.u.u8 = static_cast<uint8_t>(x); break;
      case DType::kI8: v.u.i8 = static_cast<int8_t>(x); break;
      case DType::kU16: v.u.u16 = static_cast<uint16_t>(x); break;
      case DType::kI16: v.u.i16 = static_cast<int16_t>(x); break;
      case DType::kU32: v.u.u32 = static_cast<uint32_t>(x); break;
      case DType::kI32: v.u.i32 = static_cast<int32_t>(x); break;
      case DType::kF16: v.u.u16 = float_to_half_bits(static_cast<float>(x)); break;
      case DType::kBF16: v.u.u16 = float_to_bf16_bits(static_cast<float>(x)); break;
      case DType::kF32: v.u.f32 = static_cast<float>(x); break;
      case DType::kF64: v.u.f64 = x; break;
    }
    p.set_scalar(p.type(), v);
  }
}

Halide::Pipeline copy_pipeline(const Halide::Pipeline& pipeline) {
  std::vector<Function> outputs;
  for (const Halide::Func& f : pipeline.outputs()) outputs.push_back(f.function());
  const auto copied = Halide::Internal::deep_copy(outputs, Halide::Internal::build_environment(outputs));
  std::vector<Halide::Func> funcs;
  for (const Function& f : copied.first) funcs.emplace_back(f);
  return Halide::Pipeline(funcs);
}

Halide::Internal::Parameter wrapped_input(const Function& f) {
  if (f.has_update_definition() || f.outputs() != 1) return {};
  const Halide::Internal::Definition& def = f.definition();
  if (def.values().size() != 1) return {};
  const Call* call = def.values()[0].as<Call>();
  if (!call || call->args.size() != f.args().size()) return {};
  for (size_t i = 0; i < call->args.size(); ++i) {
    const auto* v = call->args[i].as<Halide::Internal::Variable>();
    if (!v || v->name != f.args()[i]) return {};
  }
  if (call->call_type == Call::Image && call->param.defined()) return call->param;
  // A wrapper of a wrapper: a lambda over an ImageParam's own wrapper Func, as
  // BoundaryConditions makes for an ImageParam or a Generator's Input<Buffer>.
  if (call->call_type == Call::Halide && call->func.defined()) return wrapped_input(Function(call->func));
  return {};
}

Halide::Func input_wrapper(const BuiltPipeline& built, const std::string& input) {
  std::vector<Function> outputs;
  for (const Halide::Func& out : built.outputs) outputs.push_back(out.function());
  for (const auto& [name, f] : Halide::Internal::build_environment(outputs)) {
    if (f.updates().empty() && f.definition().defined() && f.definition().values().size() == 1) {
      const Call* call = f.definition().values()[0].as<Call>();
      if (call && call->call_type == Call::Image && call->param.defined() && call->param.name() == input &&
          wrapped_input(f).defined()) {
        return Halide::Func(f);
      }
    }
  }
  return {};
}

std::vector<Halide::Func> pipeline_funcs(const BuiltPipeline& built) {
  std::set<std::string> seen;
  std::vector<Function> order;
  for (const Halide::Func& out : built.outputs) post_order(out.function(), seen, order);
  std::vector<Halide::Func> funcs;
  for (const Function& f : order) funcs.emplace_back(f);
  return funcs;
}

namespace {

namespace HI = Halide::Internal;

// The name a person wrote: Halide appends "$N" to a name made twice in one process.
std::string written_name(const std::string& name) { return name.substr(0, name.find('$')); }

// Halide's bounds of the values every Func can take (a Func that clamps its value bounds
// the indices computed from it), with `known` substituted: the same facts Halide's own
// bounds inference uses. Empty when Halide cannot compute them.
HI::FuncValueBounds func_value_bounds(const BuiltPipeline& built, const std::map<std::string, Halide::Expr>& known) {
  std::vector<Function> outputs;
  for (const Halide::Func& out : built.outputs) outputs.push_back(out.function());
  HI::FuncValueBounds bounds;
  try {
    const std::map<std::string, Function> env = HI::build_environment(outputs);
    bounds = HI::compute_function_value_bounds(HI::topological_order(outputs, env), env);
  } catch (const Halide::Error&) {
    return {};
  }
  for (auto& [key, interval] : bounds) {
    if (interval.has_lower_bound()) interval.min = HI::simplify(with_known_values(interval.min, known));
    if (interval.has_upper_bound()) interval.max = HI::simplify(with_known_values(interval.max, known));
  }
  return bounds;
}

// `box` simplified, with an undefined bound where it is unbounded (a bound Halide's
// Interval cannot be built from).
HI::Box simplified_or_undefined(const HI::Box& box) {
  HI::Box result(box.size());
  for (size_t d = 0; d < box.size(); ++d) {
    result[d].min = box[d].has_lower_bound() ? HI::simplify(box[d].min) : Halide::Expr();
    result[d].max = box[d].has_upper_bound() ? HI::simplify(box[d].max) : Halide::Expr();
  }
  return result;
}

// The boxes of the outputs, at their shapes and mins.
std::map<std::string, HI::Box> output_boxes(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs) {
  std::map<std::string, HI::Box> boxes;
  size_t tensor = 0;  // a Tuple-valued output is several tensors with one box
  for (size_t i = 0; i < built.outputs.size() && tensor < outputs.size(); ++i) {
    HI::Box box;
    const Shape& shape = outputs[tensor].shape;
    const std::vector<int64_t> mins = outputs[tensor].mins_or_zero();
    for (size_t d = 0; d < shape.size(); ++d) {
      const size_t axis = shape.size() - 1 - d;
      box.push_back(HI::Interval(static_cast<int>(mins[axis]), static_cast<int>(mins[axis] + shape[axis] - 1)));
    }
    boxes[built.outputs[i].name()] = box;
    tensor += built.outputs[i].function().outputs();
  }
  return boxes;
}

}  // namespace

std::map<std::string, Halide::Internal::Box> func_boxes(const BuiltPipeline& built,
                                                        const std::vector<TensorInfo>& outputs,
                                                        const std::map<std::string, Halide::Expr>& known) {
  const std::vector<Halide::Func> funcs = pipeline_funcs(built);
  const std::map<std::string, std::string> input_callees = collect_inputs(funcs).callee_to_param;
  const HI::FuncValueBounds value_bounds = func_value_bounds(built, known);
  std::set<std::string> names;
  for (const Halide::Func& f : funcs) names.insert(f.name());
  std::map<std::string, HI::Box> boxes = output_boxes(built, outputs);
  const auto merge_into = [&boxes](const std::string& name, const HI::Box& required) {
    HI::Box& target = boxes[name];
    if (target.empty()) {
      target = required;
    } else {
      HI::merge_boxes(target, required);
    }
  };
  for (auto it = funcs.rbegin(); it != funcs.rend(); ++it) {
    const HI::Function f = it->function();
    const HI::Box box = boxes[f.name()];
    std::vector<const HI::Definition*> defs = {&f.definition()};
    for (const auto& u : f.updates()) defs.push_back(&u);
    for (size_t s = 0; s < defs.size(); ++s) {
      const HI::Definition* def = defs[s];
      try {
        HI::Scope<HI::Interval> scope;
        for (size_t a = 0; a < f.args().size() && a < box.size(); ++a) scope.push(f.args()[a], box[a]);
        for (const HI::ReductionVariable& rv : def->schedule().rvars()) {
          const Halide::Expr min = HI::simplify(with_known_values(rv.min, known));
          scope.push(rv.var, HI::Interval(min, HI::simplify(min + with_known_values(rv.extent, known) - 1)));
        }
        std::vector<Halide::Expr> exprs = def->values();
        exprs.insert(exprs.end(), def->args().begin(), def->args().end());
        for (const Halide::Expr& e : exprs) {
          for (auto& [callee, required] : HI::boxes_required(with_known_values(e, known), scope, value_bounds)) {
            if (names.count(callee)) {
              merge_into(callee, required);
            } else if (auto in = input_callees.find(callee); in != input_callees.end()) {
              merge_into(in->second, required);
            }
          }
        }
      } catch (const Halide::Error& e) {
        throw UserError("inferring what Func \"" + written_name(f.name()) + "\" (stage " + std::to_string(s) +
                        ") reads, from its region the outputs require, failed inside Halide: " + e.what());
      }
    }
  }
  for (auto& [name, box] : boxes) box = simplified_or_undefined(box);
  return boxes;
}

namespace {

// "<buffer>.min.<d>", ".extent.<d>" and ".stride.<d>" of a dense buffer placed like `t`.
void add_buffer_values(const std::string& buffer, const TensorInfo& t, std::map<std::string, Halide::Expr>& known) {
  const std::vector<int64_t> mins = t.mins_or_zero();
  int64_t stride = 1;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    const size_t axis = t.shape.size() - 1 - d;  // Halide dimension d is the innermost-first axis
    const std::string prefix = buffer + ".";
    known[prefix + "min." + std::to_string(d)] = static_cast<int>(mins[axis]);
    known[prefix + "extent." + std::to_string(d)] = static_cast<int>(t.shape[axis]);
    known[prefix + "stride." + std::to_string(d)] = static_cast<int>(stride);
    stride *= t.shape[axis];
  }
}

}  // namespace

std::map<std::string, Halide::Expr> known_values(const BuiltPipeline& built, const std::vector<TensorInfo>& inputs,
                                                 const std::vector<TensorInfo>& outputs,
                                                 const std::vector<ScalarInfo>& scalars) {
  std::map<std::string, Halide::Expr> known;
  for (size_t i = 0; i < built.inputs.size() && i < inputs.size(); ++i) {
    add_buffer_values(built.inputs[i].name(), inputs[i], known);
  }
  size_t tensor = 0;
  for (const Halide::Func& f : built.outputs) {
    for (const Halide::Internal::Parameter& buffer : f.function().output_buffers()) {
      if (tensor < outputs.size()) add_buffer_values(buffer.name(), outputs[tensor++], known);
    }
  }
  for (const Halide::Internal::Parameter& p : built.scalars) {
    for (const ScalarInfo& s : scalars) {
      if (s.name == p.name()) known[p.name()] = Halide::Internal::make_const(p.type(), round_to(s.dtype, s.value));
    }
  }
  return known;
}

Halide::Expr with_known_values(const Halide::Expr& e, const std::map<std::string, Halide::Expr>& known) {
  if (!e.defined() || known.empty()) return e;
  return Halide::Internal::substitute(known, e);
}

void apply_trivial_schedule(const BuiltPipeline& built) {
  for (Halide::Func f : pipeline_funcs(built)) f.compute_root();
}

Halide::Buffer<> to_halide_buffer(const Tensor& t, const std::vector<int64_t>& mins) {
  TensorInfo info{"", t.dtype, t.shape, mins};
  Halide::Buffer<> buf = make_halide_buffer(info);
  KTUNE_CHECK(static_cast<size_t>(buf.number_of_elements()) == t.size());
  std::memcpy(buf.data(), t.bytes.data(), t.bytes.size());
  return buf;
}

Halide::Buffer<> make_halide_buffer(const TensorInfo& info) {
  std::vector<int> sizes(info.shape.rbegin(), info.shape.rend());
  Halide::Buffer<> buf(halide_type_of(info.dtype), sizes);
  const std::vector<int64_t> mins = info.mins_or_zero();
  std::vector<int> halide_mins(mins.rbegin(), mins.rend());
  buf.set_min(halide_mins);
  return buf;
}

Tensor tensor_from_buffer(const Halide::Buffer<>& b) {
  Shape shape;
  for (int d = b.dimensions() - 1; d >= 0; --d) shape.push_back(b.dim(d).extent());
  const std::optional<DType> dtype = dtype_of(b.type());
  KTUNE_CHECK(dtype) << "a buffer of an unsupported type";
  Tensor t(shape, *dtype);
  KTUNE_CHECK(b.size_in_bytes() == t.bytes.size()) << "a buffer that is not dense";
  std::memcpy(t.bytes.data(), b.data(), t.bytes.size());
  return t;
}

std::vector<Tensor> run_pipeline(const BuiltPipeline& built, const std::vector<Tensor>& inputs,
                                 const std::vector<TensorInfo>& input_infos,
                                 const std::vector<TensorInfo>& outputs, const Halide::Target& target) {
  KTUNE_CHECK(inputs.size() == built.inputs.size() && input_infos.size() == inputs.size())
      << "expected " << built.inputs.size() << " inputs, got " << inputs.size();
  std::vector<Halide::Buffer<>> in_buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_buffers.push_back(to_halide_buffer(inputs[i], input_infos[i].mins));
    Halide::Internal::Parameter param = built.inputs[i];
    param.set_buffer(in_buffers.back());
  }
  std::vector<Halide::Buffer<>> out_buffers;
  for (const TensorInfo& info : outputs) out_buffers.push_back(make_halide_buffer(info));
  Halide::Realization realization(out_buffers);
  Halide::Pipeline pipeline = built.pipeline;
  pipeline.realize(realization, target);
  std::vector<Tensor> result;
  for (const Halide::Buffer<>& b : out_buffers) result.push_back(tensor_from_buffer(b));
  for (size_t i = 0; i < inputs.size(); ++i) {
    Halide::Internal::Parameter param = built.inputs[i];
    param.set_buffer(Halide::Buffer<>());
  }
  return result;
}

}  // namespace ktune::subgraphs
