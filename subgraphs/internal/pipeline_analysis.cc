#include "subgraphs/internal/pipeline_analysis.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/check.h"
#include "subgraphs/canonical_names.h"

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;
using Halide::Expr;

// Renames Funcs, buffers, parameters and variables to positional names, and prints
// float constants exactly, so that printing gives a name-independent canonical text.
class Canonicalizer : public HI::IRMutator {
 public:
  Canonicalizer(const std::map<std::string, std::string>& funcs,
                const std::map<std::string, std::string>& buffers)
      : funcs_(funcs), buffers_(buffers) {}

  // Variables of the definition being printed (pure args and reduction vars).
  std::map<std::string, std::string> vars;

  using IRMutator::visit;

 protected:
  Expr visit(const HI::Variable* op) override {
    auto it = vars.find(op->name);
    if (it != vars.end()) return HI::Variable::make(op->type, it->second);
    // Buffer metadata such as "in.extent.0" and scalar parameters.
    const size_t dot = op->name.find('.');
    auto b = buffers_.find(op->name.substr(0, dot));
    if (b != buffers_.end()) {
      return HI::Variable::make(op->type, b->second + (dot == std::string::npos ? "" : op->name.substr(dot)));
    }
    return HI::Variable::make(op->type, "param:" + op->name);
  }

  // Let names come from a process-wide counter (common subexpression elimination):
  // number them by position instead.
  Expr visit(const HI::Let* op) override {
    const Expr value = mutate(op->value);
    const std::string name = "let" + std::to_string(lets_++);
    auto previous = vars.find(op->name);
    const std::string saved = previous == vars.end() ? std::string() : previous->second;
    vars[op->name] = name;
    const Expr body = mutate(op->body);
    if (saved.empty()) {
      vars.erase(op->name);
    } else {
      vars[op->name] = saved;
    }
    return HI::Let::make(name, value, body);
  }

  Expr visit(const HI::FloatImm* op) override {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "float%d:%a", op->type.bits(), op->value);
    return HI::Variable::make(op->type, buf);
  }

  Expr visit(const HI::Call* op) override {
    std::vector<Expr> args;
    for (const Expr& a : op->args) args.push_back(mutate(a));
    std::string name = op->name;
    if (op->call_type == HI::Call::Halide && op->func.defined() &&
        wrapped_input(HI::Function(op->func)).defined()) {
      const std::string param = wrapped_input(HI::Function(op->func)).name();
      auto it = buffers_.find(param);
      KTUNE_CHECK(it != buffers_.end()) << "call to unknown input " << param;
      name = it->second;
    } else if (op->call_type == HI::Call::Halide) {
      auto it = funcs_.find(op->name);
      KTUNE_CHECK(it != funcs_.end()) << "call to unknown Func " << op->name;
      name = it->second;
    } else if (op->call_type == HI::Call::Image) {
      auto it = buffers_.find(op->name);
      name = it != buffers_.end() ? it->second : "image:" + op->name;
    }
    if (op->call_type != HI::Call::Halide && op->call_type != HI::Call::Image) {
      return HI::Call::make(op->type, name, args, op->call_type);
    }
    // Printed as an extern call: Halide and image calls need their Function or buffer.
    if (op->value_index != 0) name += "." + std::to_string(op->value_index);
    return HI::Call::make(op->type, name, args, HI::Call::PureExtern);
  }

 private:
  const std::map<std::string, std::string>& funcs_;
  const std::map<std::string, std::string>& buffers_;
  int lets_ = 0;  // Let bindings renamed so far
};

// Collects buffer parameters in visiting order.
class BufferCollector : public HI::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  std::vector<std::string> names;

 protected:
  void visit(const HI::Call* op) override {
    IRGraphVisitor::visit(op);
    std::string name;
    if (op->call_type == HI::Call::Image) name = op->name;
    if (op->call_type == HI::Call::Halide && op->func.defined()) {
      const HI::Parameter p = wrapped_input(HI::Function(op->func));
      if (p.defined()) name = p.name();
    }
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
};

std::string print(const Expr& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

int64_t const_or_minus_one(const Expr& e) {
  if (!e.defined()) return -1;
  const Expr s = HI::simplify(e);
  if (const int64_t* v = HI::as_const_int(s)) return *v;
  return -1;
}

// Positional names of the buffers the definitions read: "in<i>" for the declared inputs,
// "buffer<i>" for the others (embedded constants), in the order the definitions read them.
std::map<std::string, std::string> buffer_names(const BuiltPipeline& built, const std::vector<Halide::Func>& funcs) {
  std::map<std::string, std::string> names;
  for (size_t i = 0; i < built.inputs.size(); ++i) names[built.inputs[i].name()] = "in" + std::to_string(i);
  BufferCollector collector;
  for (const Halide::Func& f : funcs) {
    for (const Expr& e : f.function().definition().values()) e.accept(&collector);
    for (const auto& u : f.function().updates()) {
      for (const Expr& e : u.values()) e.accept(&collector);
    }
  }
  int extra = 0;
  for (const std::string& n : collector.names) {
    if (!names.count(n)) names[n] = "buffer" + std::to_string(extra++);
  }
  return names;
}

// The stage's loops in Halide's initial nesting, innermost first (the same order the
// scheduler's analysis uses), with their extents; -1 where unknown or unbounded (an index
// that depends on data). The last dim is Halide's __outermost placeholder.
void add_stage_loops(const HI::Function& f, const HI::Definition& def, const HI::Box& box, const StageLoopNames& loops,
                     const std::map<std::string, Expr>& known, StageInfo& stage) {
  const auto& rvars = def.schedule().rvars();
  for (const HI::Dim& dim : def.schedule().dims()) {
    if (dim.var == Halide::Var::outermost().name()) continue;
    if (dim.is_rvar()) {
      for (const HI::ReductionVariable& rv : rvars) {
        if (rv.var == dim.var) stage.reduction_loops.push_back({loops.canonical(rv.var), const_or_minus_one(with_known_values(rv.extent, known))});
      }
      continue;
    }
    for (size_t a = 0; a < f.args().size(); ++a) {
      if (f.args()[a] != dim.var) continue;
      const bool bounded = a < box.size() && box[a].min.defined() && box[a].max.defined();
      const int64_t extent = bounded ? const_or_minus_one(box[a].max - box[a].min + 1) : -1;
      stage.pure_loops.push_back({loops.canonical(dim.var), extent});
    }
  }
}

// One line of the canonical definitions: "  stage s: (args) = (values)", the reduction
// domain and the predicate, every name positional.
void print_stage_definition(const HI::Definition& def, size_t s, Canonicalizer& canon, std::ostringstream& defs) {
  const auto& rvars = def.schedule().rvars();
  defs << "  stage " << s << ": (";
  for (size_t a = 0; a < def.args().size(); ++a) {
    defs << (a ? ", " : "") << print(canon.mutate(def.args()[a]));
  }
  defs << ") = (";
  for (size_t v = 0; v < def.values().size(); ++v) {
    defs << (v ? ", " : "") << print(canon.mutate(def.values()[v]));
  }
  defs << ")";
  for (size_t r = 0; r < rvars.size(); ++r) {
    defs << " r" << r << " in [" << print(canon.mutate(rvars[r].min)) << ", +"
         << print(canon.mutate(rvars[r].extent)) << ")";
  }
  if (def.predicate().defined() && !HI::is_const_one(def.predicate())) {
    defs << " where " << print(canon.mutate(def.predicate()));
  }
  defs << "\n";
}

// The shapes line of the key. Mins and scalars are printed only when present, so that the
// keys of pipelines without them stay what they were before ktune knew of them.
std::string shapes_text(const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                        const std::vector<ScalarInfo>& scalars) {
  const auto tensor_text = [](const TensorInfo& t) {
    return to_string(t.dtype) + shape_to_string(t.shape) + (t.at_origin() ? "" : "@" + shape_to_string(t.mins));
  };
  std::ostringstream shapes;
  for (size_t i = 0; i < inputs.size(); ++i) shapes << "in" << i << ":" << tensor_text(inputs[i]) << ";";
  shapes << "->";
  for (size_t i = 0; i < outputs.size(); ++i) shapes << "out" << i << ":" << tensor_text(outputs[i]) << ";";
  for (const ScalarInfo& s : scalars) {
    char value[64];
    std::snprintf(value, sizeof(value), "%a", s.value);
    shapes << "|" << s.name << ":" << to_string(s.dtype) << "=" << value;
  }
  return shapes.str();
}

}  // namespace

PipelineAnalysis analyze_pipeline(const BuiltPipeline& built, const std::vector<TensorInfo>& inputs,
                                  const std::vector<TensorInfo>& outputs, const std::vector<ScalarInfo>& scalars) {
  const std::vector<Halide::Func> funcs = pipeline_funcs(built);
  std::map<std::string, std::string> func_names;
  for (size_t i = 0; i < funcs.size(); ++i) func_names[funcs[i].name()] = "f" + std::to_string(i);
  const std::map<std::string, std::string> buffers = buffer_names(built, funcs);
  const std::map<std::string, Expr> known = known_values(built, inputs, outputs, scalars);
  const std::map<std::string, HI::Box> boxes = func_boxes(built, outputs, known);
  const std::vector<FuncNames> names = canonical_names(funcs);

  PipelineAnalysis result;
  std::ostringstream defs;
  for (size_t i = 0; i < funcs.size(); ++i) {
    const HI::Function f = funcs[i].function();
    bool is_output = false;
    for (const Halide::Func& o : built.outputs) is_output |= o.name() == f.name();
    defs << func_names[f.name()] << (is_output ? " output" : "") << " types";
    for (const Halide::Type& t : f.output_types()) defs << " " << t;
    defs << "\n";
    std::vector<const HI::Definition*> stage_defs = {&f.definition()};
    for (const auto& u : f.updates()) stage_defs.push_back(&u);
    for (size_t s = 0; s < stage_defs.size(); ++s) {
      const HI::Definition& def = *stage_defs[s];
      StageInfo stage;
      stage.func = names[i].name;
      stage.stage = static_cast<int>(s);
      stage.is_output = is_output;
      add_stage_loops(f, def, boxes.at(f.name()), names[i].stages[s], known, stage);
      Canonicalizer canon(func_names, buffers);
      for (size_t a = 0; a < f.args().size(); ++a) canon.vars[f.args()[a]] = "v" + std::to_string(a);
      const auto& rvars = def.schedule().rvars();
      for (size_t r = 0; r < rvars.size(); ++r) canon.vars[rvars[r].var] = "r" + std::to_string(r);
      print_stage_definition(def, s, canon, defs);
      result.stages.push_back(std::move(stage));
    }
  }
  result.definitions = defs.str();
  result.shapes = shapes_text(inputs, outputs, scalars);
  return result;
}

}  // namespace ktune::subgraphs
