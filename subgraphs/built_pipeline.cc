#include "subgraphs/built_pipeline.h"

#include <set>

#include "common/check.h"

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

// Collects the buffer parameters a pipeline reads, in visiting order.
class InputCollector : public Halide::Internal::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  std::vector<Halide::Internal::Parameter> params;

 protected:
  void visit(const Call* op) override {
    IRGraphVisitor::visit(op);
    Halide::Internal::Parameter param;
    if (op->call_type == Call::Image) param = op->param;
    if (op->call_type == Call::Halide && op->func.defined()) param = wrapped_input(Function(op->func));
    if (!param.defined() || !param.is_buffer()) return;
    for (const Halide::Internal::Parameter& p : params) {
      if (p.name() == param.name()) return;
    }
    params.push_back(param);
  }
};

}  // namespace

BuiltPipeline built_from_pipeline(const Halide::Pipeline& pipeline) {
  BuiltPipeline built;
  built.pipeline = pipeline;
  built.outputs = built.pipeline.outputs();
  InputCollector inputs;
  for (const Halide::Func& f : pipeline_funcs(built)) {
    for (const Halide::Expr& e : f.function().definition().values()) e.accept(&inputs);
    for (const auto& u : f.function().updates()) {
      for (const Halide::Expr& e : u.values()) e.accept(&inputs);
      for (const Halide::Expr& e : u.args()) e.accept(&inputs);
    }
  }
  built.inputs = inputs.params;
  return built;
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
  if (!call || call->call_type != Call::Image || !call->param.defined()) return {};
  if (call->args.size() != f.args().size()) return {};
  for (size_t i = 0; i < call->args.size(); ++i) {
    const auto* v = call->args[i].as<Halide::Internal::Variable>();
    if (!v || v->name != f.args()[i]) return {};
  }
  return call->param;
}

std::vector<Halide::Func> pipeline_funcs(const BuiltPipeline& built) {
  std::set<std::string> seen;
  std::vector<Function> order;
  for (const Halide::Func& out : built.outputs) post_order(out.function(), seen, order);
  std::vector<Halide::Func> funcs;
  for (const Function& f : order) funcs.emplace_back(f);
  return funcs;
}

std::map<std::string, Halide::Internal::Box> func_boxes(const BuiltPipeline& built,
                                                        const std::vector<TensorInfo>& outputs) {
  namespace HI = Halide::Internal;
  const std::vector<Halide::Func> funcs = pipeline_funcs(built);
  std::set<std::string> names;
  for (const Halide::Func& f : funcs) names.insert(f.name());
  std::map<std::string, HI::Box> boxes;
  for (size_t i = 0; i < built.outputs.size() && i < outputs.size(); ++i) {
    HI::Box box;
    const Shape& shape = outputs[i].shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      box.push_back(HI::Interval(0, static_cast<int>(shape[shape.size() - 1 - d] - 1)));
    }
    boxes[built.outputs[i].name()] = box;
  }
  for (auto it = funcs.rbegin(); it != funcs.rend(); ++it) {
    const HI::Function f = it->function();
    const HI::Box box = boxes[f.name()];
    std::vector<const HI::Definition*> defs = {&f.definition()};
    for (const auto& u : f.updates()) defs.push_back(&u);
    for (const HI::Definition* def : defs) {
      HI::Scope<HI::Interval> scope;
      for (size_t a = 0; a < f.args().size() && a < box.size(); ++a) scope.push(f.args()[a], box[a]);
      for (const HI::ReductionVariable& rv : def->schedule().rvars()) {
        scope.push(rv.var, HI::Interval(rv.min, HI::simplify(rv.min + rv.extent - 1)));
      }
      std::vector<Halide::Expr> exprs = def->values();
      exprs.insert(exprs.end(), def->args().begin(), def->args().end());
      for (const Halide::Expr& e : exprs) {
        for (auto& [callee, required] : HI::boxes_required(e, scope)) {
          if (!names.count(callee)) continue;
          HI::Box& target = boxes[callee];
          if (target.empty()) {
            target = required;
          } else {
            HI::merge_boxes(target, required);
          }
        }
      }
    }
  }
  for (auto& [name, box] : boxes) {
    for (size_t d = 0; d < box.size(); ++d) {
      box[d] = HI::Interval(HI::simplify(box[d].min), HI::simplify(box[d].max));
    }
  }
  return boxes;
}

void apply_trivial_schedule(const BuiltPipeline& built) {
  for (Halide::Func f : pipeline_funcs(built)) f.compute_root();
}

Halide::Buffer<float> to_halide_buffer(const Tensor& t) {
  std::vector<int> sizes(t.shape.rbegin(), t.shape.rend());
  Halide::Buffer<float> buf(sizes);
  KTUNE_CHECK(static_cast<size_t>(buf.number_of_elements()) == t.data.size());
  std::copy(t.data.begin(), t.data.end(), buf.data());
  return buf;
}

std::vector<Tensor> run_pipeline(const BuiltPipeline& built, const std::vector<Tensor>& inputs,
                                 const std::vector<TensorInfo>& outputs,
                                 const Halide::Target& target) {
  KTUNE_CHECK(inputs.size() == built.inputs.size())
      << "expected " << built.inputs.size() << " inputs, got " << inputs.size();
  std::vector<Halide::Buffer<float>> in_buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_buffers.push_back(to_halide_buffer(inputs[i]));
    Halide::Internal::Parameter param = built.inputs[i];
    param.set_buffer(in_buffers.back());
  }
  std::vector<Halide::Buffer<>> out_buffers;
  for (const TensorInfo& info : outputs) {
    std::vector<int> sizes(info.shape.rbegin(), info.shape.rend());
    out_buffers.emplace_back(Halide::Buffer<float>(sizes));
  }
  Halide::Realization realization(out_buffers);
  Halide::Pipeline pipeline = built.pipeline;
  pipeline.realize(realization, target);
  std::vector<Tensor> result;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Halide::Buffer<float> b = out_buffers[i];
    Tensor t{outputs[i].shape, std::vector<float>(b.data(), b.data() + b.number_of_elements())};
    result.push_back(std::move(t));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    Halide::Internal::Parameter param = built.inputs[i];
    param.set_buffer(Halide::Buffer<>());
  }
  return result;
}

}  // namespace ktune::subgraphs
