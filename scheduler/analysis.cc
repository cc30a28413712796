// Entry points: analyze() builds the pipeline once and fills Analysis; the helpers below
// read stages, loops and calls off Halide's Function objects, write their iterations and
// accesses as isl text (internal/isl_relations.h) and hand the relations to isl
// (dependences.h).
#include "scheduler/analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include "scheduler/dependences.h"
#include "scheduler/internal/isl_relations.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/canonical_names.h"
#include "subgraphs/subgraph.h"

namespace ktune::scheduler {
namespace {

namespace HI = Halide::Internal;

// Collects the calls of a definition and counts its arithmetic.
class CallCollector : public HI::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  std::vector<const HI::Call*> calls;
  int arith = 0;

 protected:
  void visit(const HI::Call* op) override {
    IRGraphVisitor::visit(op);
    if (op->call_type == HI::Call::Halide || op->call_type == HI::Call::Image) {
      calls.push_back(op);
    } else {
      ++arith;
    }
  }
  void visit(const HI::Add* op) override { ++arith; IRGraphVisitor::visit(op); }
  void visit(const HI::Sub* op) override { ++arith; IRGraphVisitor::visit(op); }
  void visit(const HI::Mul* op) override { ++arith; IRGraphVisitor::visit(op); }
  void visit(const HI::Div* op) override { ++arith; IRGraphVisitor::visit(op); }
  void visit(const HI::Min* op) override { ++arith; IRGraphVisitor::visit(op); }
  void visit(const HI::Max* op) override { ++arith; IRGraphVisitor::visit(op); }
  void visit(const HI::Select* op) override { ++arith; IRGraphVisitor::visit(op); }
};

// True when `e` calls likely() or likely_if_innermost().
bool calls_likely(const Halide::Expr& e) {
  class LikelyFinder : public HI::IRGraphVisitor {
   public:
    using IRGraphVisitor::visit;
    bool found = false;

   protected:
    void visit(const HI::Call* op) override {
      found |= op->is_intrinsic(HI::Call::likely) || op->is_intrinsic(HI::Call::likely_if_innermost);
      IRGraphVisitor::visit(op);
    }
  } finder;
  e.accept(&finder);
  return finder.found;
}

// The widest type a value is computed in: arithmetic, casts and the values of calls, not
// the index arithmetic inside the calls' arguments.
class ValueBits : public HI::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  int bits = 8;

 protected:
  void record(const Halide::Type& t) {
    if (!t.is_handle()) bits = std::max(bits, t.bits());
  }
  void visit(const HI::Call* op) override {
    record(op->type);
    if (op->call_type != HI::Call::Halide && op->call_type != HI::Call::Image) IRGraphVisitor::visit(op);
  }
  void visit(const HI::Add* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Sub* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Mul* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Div* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Min* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Max* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Cast* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Select* op) override { record(op->type); IRGraphVisitor::visit(op); }
  void visit(const HI::Variable* op) override { if (op->param.defined()) record(op->type); }
};

// Names of the variables an expression mentions.
class VariableNames : public HI::IRGraphVisitor {
 public:
  using IRGraphVisitor::visit;
  std::set<std::string> names;

 protected:
  void visit(const HI::Variable* op) override { names.insert(op->name); }
};

int64_t box_extent(const HI::Box& box, size_t d) {
  if (d >= box.size()) return 1;
  const int64_t* lo = HI::as_const_int(box[d].min);
  const int64_t* hi = HI::as_const_int(box[d].max);
  return lo && hi ? *hi - *lo + 1 : 1;
}

// True if `value` is f(args) op e (or e op f(args)) for op in + * min max, with no other
// call to f (inside Lets, too): the update may be split with rfactor.
bool associative_update(const HI::Function& f, const HI::Definition& def) {
  if (def.values().size() != 1 || def.schedule().rvars().empty()) return false;
  Halide::Expr v = def.values()[0];
  auto is_self = [&](const Halide::Expr& e) {
    const auto* c = e.as<HI::Call>();
    if (!c || c->call_type != HI::Call::Halide || c->name != f.name() || c->args.size() != def.args().size()) return false;
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (!HI::equal(c->args[i], def.args()[i])) return false;
    }
    return true;
  };
  auto calls_self = [&](const Halide::Expr& e) {
    CallCollector cc;
    e.accept(&cc);
    for (const HI::Call* c : cc.calls) {
      if (c->name == f.name()) return true;
    }
    return false;
  };
  auto check = [&](const Halide::Expr& a, const Halide::Expr& b) {
    return (is_self(a) && !calls_self(b)) || (is_self(b) && !calls_self(a));
  };
  // Halide binds a repeated subexpression in a Let ((x - mu)^2 is `let t = x - mu in f + t*t`):
  // look through the Lets whose values do not read f.
  while (const auto* let = v.as<HI::Let>()) {
    if (calls_self(let->value)) return false;
    v = let->body;
  }
  if (const auto* op = v.as<HI::Add>()) return check(op->a, op->b);
  if (const auto* op = v.as<HI::Mul>()) return check(op->a, op->b);
  if (const auto* op = v.as<HI::Min>()) return check(op->a, op->b);
  if (const auto* op = v.as<HI::Max>()) return check(op->a, op->b);
  return false;
}

// The built pipeline and what the analysis of every Func reads off it.
struct PipelineFacts {
  subgraphs::BuiltPipeline built;
  std::vector<Halide::Func> funcs;          // producers before consumers (pipeline_funcs)
  std::vector<subgraphs::FuncNames> names;  // canonical names, one per Func
  // Buffer sizes and scalar values, where definitions mention them (an RDom over an input's
  // width), are the ones ktune runs with.
  std::map<std::string, Halide::Expr> known;
  std::map<std::string, HI::Box> boxes;  // region of every Func the outputs require, by Halide name
  std::map<std::string, int> index;      // Halide name -> index into funcs
};

// The Func whose stages are being analyzed, and what its stages read.
struct FuncContext {
  const PipelineFacts& pipeline;
  size_t index;  // into pipeline.funcs
  const HI::Function& function;
  const FuncAnalysis& facts;  // its name and extents, filled in before its stages
  const HI::Box& box;         // its region the outputs require
};

// A stage's loops as the Halide expressions of this build name them.
struct HalideLoops {
  std::vector<std::string> names;              // Halide name of each of StageAnalysis::loops
  std::map<std::string, HI::Interval> ranges;  // iterations of a loop, where known
};

// A stage's reads of its own Func, which with its write decide the loops that carry a dependence.
struct SelfAccesses {
  std::string reads;  // the self reads' relations without braces, "; "-separated
};

// Builds the subgraph's pipeline once and reads off its Funcs, their names, the known values and regions.
PipelineFacts build_pipeline(const subgraphs::Subgraph& subgraph) {
  PipelineFacts p;
  p.built = subgraph.build();
  p.funcs = subgraphs::pipeline_funcs(p.built);
  p.names = subgraphs::canonical_names(p.funcs);
  p.known = subgraphs::known_values(p.built, subgraph.inputs(), subgraph.outputs(), subgraph.scalars());
  p.boxes = subgraphs::func_boxes(p.built, subgraph.outputs(), p.known);
  for (size_t i = 0; i < p.funcs.size(); ++i) p.index[p.funcs[i].name()] = static_cast<int>(i);
  return p;
}

// Per pure variable of `f`: true when an update writes along it with anything but that variable.
std::vector<bool> reduced_dims(const HI::Function& f, size_t dims) {
  std::vector<bool> reduced(dims, false);
  for (const auto& u : f.updates()) {
    for (size_t d = 0; d < u.args().size() && d < reduced.size(); ++d) {
      const auto* v = u.args()[d].as<HI::Variable>();
      if (!v || v->name != f.args()[d]) reduced[d] = true;
    }
  }
  return reduced;
}

// The facts of Func `i` that do not depend on its stages: name, output or not, variables, extents, element size.
FuncAnalysis describe_func(const PipelineFacts& pipeline, size_t i, const HI::Function& f, const HI::Box& box) {
  FuncAnalysis fa;
  fa.name = pipeline.names[i].name;
  for (const Halide::Func& o : pipeline.built.outputs) fa.is_output |= o.name() == f.name();
  fa.args = pipeline.names[i].args;
  for (size_t d = 0; d < fa.args.size(); ++d) {
    fa.extents.push_back(box_extent(box, d));
    fa.unbounded_dims.push_back(d < box.size() && (!box[d].min.defined() || !box[d].max.defined()));
  }
  fa.element_bytes = 1;
  for (const Halide::Type& t : f.output_types()) fa.element_bytes = std::max(fa.element_bytes, t.bytes());
  fa.reduced_dims = reduced_dims(f, fa.args.size());
  return fa;
}

// The definitions of `f`'s stages: the pure definition, then each update.
std::vector<const HI::Definition*> stage_definitions(const HI::Function& f) {
  std::vector<const HI::Definition*> defs = {&f.definition()};
  for (const auto& u : f.updates()) defs.push_back(&u);
  return defs;
}

// One loop of a stage: canonical name, kind and extent; records the iterations it runs over in `ranges`.
LoopAnalysis analyze_loop(const FuncContext& func, const subgraphs::StageLoopNames& loop_names,
                          const HI::Definition& def, const HI::Dim& dim,
                          std::map<std::string, HI::Interval>& ranges) {
  LoopAnalysis loop;
  loop.name = loop_names.canonical(dim.var);
  loop.is_reduction = dim.is_rvar();
  if (loop.is_reduction) {
    for (const HI::ReductionVariable& rv : def.schedule().rvars()) {
      if (rv.var != dim.var) continue;
      const Halide::Expr min = HI::simplify(subgraphs::with_known_values(rv.min, func.pipeline.known));
      const Halide::Expr extent = HI::simplify(subgraphs::with_known_values(rv.extent, func.pipeline.known));
      const int64_t* e = HI::as_const_int(extent);
      loop.extent = e ? *e : 1;
      ranges[dim.var] = HI::Interval(min, HI::simplify(min + extent - 1));
    }
  } else {
    for (size_t a = 0; a < func.function.args().size(); ++a) {
      if (func.function.args()[a] != dim.var) continue;
      loop.extent = func.facts.extents[a];
      if (a < func.box.size()) ranges[dim.var] = func.box[a];
    }
  }
  return loop;
}

// The loops of stage `s` in Halide's initial order, innermost first (the last dim is __outermost),
// and in `halide` the Halide name and known range of each.
std::vector<LoopAnalysis> stage_loops(const FuncContext& func, size_t s, const HI::Definition& def,
                                      HalideLoops& halide) {
  const subgraphs::StageLoopNames& loop_names = func.pipeline.names[func.index].stages[s];
  std::vector<LoopAnalysis> loops;
  for (const HI::Dim& dim : def.schedule().dims()) {
    if (dim.var == Halide::Var::outermost().name()) continue;
    loops.push_back(analyze_loop(func, loop_names, def, dim, halide.ranges));
    halide.names.push_back(dim.var);
  }
  return loops;
}

// `exprs` with the values ktune runs with substituted, in order.
std::vector<Halide::Expr> substitute_known_values(const std::vector<Halide::Expr>& exprs,
                                                  const std::map<std::string, Halide::Expr>& known) {
  std::vector<Halide::Expr> substituted;
  for (const Halide::Expr& e : exprs) substituted.push_back(subgraphs::with_known_values(e, known));
  return substituted;
}

// Bits of the widest type a stage's `values` are computed in (StageAnalysis::value_bits).
int widest_value_bits(const std::vector<Halide::Expr>& values) {
  ValueBits vb;
  for (const Halide::Expr& e : values) {
    vb.bits = std::max(vb.bits, e.type().bits());
    e.accept(&vb);
  }
  return vb.bits;
}

// What a call reads: a Func of the pipeline (its index and canonical name) or, with func -1, an input by name.
ProducerUse called_producer(const PipelineFacts& pipeline, const HI::Call* call) {
  ProducerUse use;
  if (call->call_type == HI::Call::Halide && call->func.defined() &&
      subgraphs::wrapped_input(HI::Function(call->func)).defined()) {
    use.name = subgraphs::wrapped_input(HI::Function(call->func)).name();
  } else if (call->call_type == HI::Call::Halide) {
    auto it = pipeline.index.find(call->name);
    use.func = it == pipeline.index.end() ? -1 : it->second;
    use.name = use.func >= 0 ? pipeline.names[use.func].name : call->name;
  } else {
    use.name = call->name;
  }
  return use;
}

// Fills in the stage's loops (canonical names) that the call's indices use: in any index, in the innermost, per index.
void record_index_loops(const HI::Call* call, const std::vector<LoopAnalysis>& loops,
                        const std::vector<std::string>& halide_loops, ProducerUse& use) {
  VariableNames vn;
  for (const Halide::Expr& a : call->args) a.accept(&vn);
  VariableNames first;
  if (!call->args.empty()) call->args[0].accept(&first);
  for (size_t l = 0; l < loops.size(); ++l) {
    if (vn.names.count(halide_loops[l])) use.index_loops.push_back(loops[l].name);
    if (first.names.count(halide_loops[l])) use.contiguous_loops.push_back(loops[l].name);
  }
  for (const Halide::Expr& a : call->args) {
    VariableNames in_index;
    a.accept(&in_index);
    use.dim_loops.emplace_back();
    for (size_t l = 0; l < loops.size(); ++l) {
      if (in_index.names.count(halide_loops[l])) use.dim_loops.back().push_back(loops[l].name);
    }
  }
}

// True for a constant index, or one clamped between constants (Halide::clamp makes
// max(min(e, hi), lo)). The bounds are simplified first: a boundary condition's, the input's
// min and extent, are its estimates here, as in `(0 + 1536) - 1`.
bool clamped_index(const Halide::Expr& e) {
  if (HI::is_const(e)) return true;
  const auto constant = [](const Halide::Expr& bound) { return HI::is_const(HI::simplify(bound)); };
  const auto bounded = [&](const Halide::Expr& inner, const Halide::Expr& bound, bool want_min) {
    if (!constant(bound)) return false;
    if (want_min) return inner.as<HI::Min>() && constant(inner.as<HI::Min>()->b);
    return inner.as<HI::Max>() && constant(inner.as<HI::Max>()->b);
  };
  if (const auto* mx = e.as<HI::Max>()) return bounded(mx->a, mx->b, true);
  if (const auto* mn = e.as<HI::Min>()) return bounded(mn->a, mn->b, false);
  return false;
}

// One call of a stage: what it reads, the element size, the isl access relation and the loops its indices use.
ProducerUse producer_use(const PipelineFacts& pipeline, const HI::Call* call, const StageSpace& space,
                         const std::vector<LoopAnalysis>& loops, const std::vector<std::string>& halide_loops) {
  ProducerUse use = called_producer(pipeline, call);
  use.element_bytes = std::max(1, call->type.bytes());
  use.bfloat = call->type.is_bfloat();
  const std::string target_name = use.func >= 0 ? "F" + std::to_string(use.func) : "in_" + loop_identifier(use.name);
  use.access = access_relation(space, target_name, call->args, use.affine);
  for (const Halide::Expr& a : call->args) {
    use.clamped_dims.push_back(clamped_index(a));
    use.likely_index |= calls_likely(a);
  }
  record_index_loops(call, loops, halide_loops, use);
  return use;
}

// Adds a stage's read of its own Func to `self`.
void add_self_read(const ProducerUse& use, SelfAccesses& self) {
  self.reads += (self.reads.empty() ? "" : "; ") + use.access.substr(2, use.access.size() - 4);
}

// Marks the loops of update `sa` that carry a dependence (isl's dataflow analysis over its write and its reads of
// its own Func, each exact or over-approximated along its non-affine indices); sets `isl_status` to why when the
// answer is conservative.
void mark_carried_loops(const IslContext& isl, const std::string& func_name, const StageSpace& space,
                        const SelfAccesses& self, StageAnalysis& sa, std::string& isl_status) {
  const LoopDependences deps = loop_dependences(isl, sa.domain, sa.write, self.reads.empty() ? "" : "{ " + self.reads + " }",
                                                static_cast<int>(space.dims.size()));
  if (deps.status != "ok") isl_status = func_name + ": " + deps.status;
  for (size_t l = 0; l < sa.loops.size(); ++l) {
    sa.loops[l].carries_dependence = deps.carries[sa.loops.size() - 1 - l];
  }
}

// Stage `s` of the Func: its loops, iteration domain, accesses, cost facts and, for an update, the loops that
// carry a dependence and whether rfactor applies.
StageAnalysis analyze_stage(const FuncContext& func, size_t s, const HI::Definition& def, const IslContext& isl,
                            std::string& isl_status) {
  StageAnalysis sa;
  sa.stage = static_cast<int>(s);
  // Everything below that reads Halide expressions uses the Halide names of this build.
  HalideLoops halide;
  sa.loops = stage_loops(func, s, def, halide);
  const StageSpace space = stage_space(halide.names);
  sa.domain = stage_domain(space, halide.names, halide.ranges);

  const std::vector<Halide::Expr> args = substitute_known_values(def.args(), func.pipeline.known);
  const std::vector<Halide::Expr> values = substitute_known_values(def.values(), func.pipeline.known);
  SelfAccesses self;
  bool write_affine = true;
  sa.write = access_relation(space, "F" + std::to_string(func.index), args, write_affine);

  CallCollector cc;
  for (const Halide::Expr& e : values) e.accept(&cc);
  for (const Halide::Expr& e : args) e.accept(&cc);
  sa.arith_ops = cc.arith;
  sa.value_bits = widest_value_bits(values);
  for (const HI::Call* call : cc.calls) {
    const ProducerUse use = producer_use(func.pipeline, call, space, sa.loops, halide.names);
    if (use.func == static_cast<int>(func.index)) add_self_read(use, self);
    sa.uses.push_back(use);
  }
  if (s > 0) {
    mark_carried_loops(isl, func.facts.name, space, self, sa, isl_status);
    sa.rfactor_ok = associative_update(func.function, def);
  }
  return sa;
}

// Func `i` of the pipeline: its own facts, then each of its stages.
FuncAnalysis analyze_func(const PipelineFacts& pipeline, size_t i, const IslContext& isl, std::string& isl_status) {
  const HI::Function f = pipeline.funcs[i].function();
  const HI::Box& box = pipeline.boxes.at(f.name());
  FuncAnalysis fa = describe_func(pipeline, i, f, box);
  const FuncContext func{pipeline, i, f, fa, box};
  const std::vector<const HI::Definition*> defs = stage_definitions(f);
  for (size_t s = 0; s < defs.size(); ++s) fa.stages.push_back(analyze_stage(func, s, *defs[s], isl, isl_status));
  return fa;
}

// Fills in every Func's consumers: each stage of another Func that calls it, once.
void record_consumers(std::vector<FuncAnalysis>& funcs) {
  for (size_t i = 0; i < funcs.size(); ++i) {
    for (const StageAnalysis& sa : funcs[i].stages) {
      for (const ProducerUse& use : sa.uses) {
        if (use.func < 0 || use.func == static_cast<int>(i)) continue;
        auto& consumers = funcs[use.func].consumers;
        const std::pair<int, int> c{static_cast<int>(i), sa.stage};
        if (std::find(consumers.begin(), consumers.end(), c) == consumers.end()) consumers.push_back(c);
      }
    }
  }
}

}  // namespace

Analysis analyze(const subgraphs::Subgraph& subgraph, const TargetInfo& target) {
  Analysis analysis;
  analysis.target = target;
  const PipelineFacts pipeline = build_pipeline(subgraph);
  IslContext isl;
  for (size_t i = 0; i < pipeline.funcs.size(); ++i) {
    analysis.funcs.push_back(analyze_func(pipeline, i, isl, analysis.isl_status));
  }
  record_consumers(analysis.funcs);
  for (const subgraphs::TensorInfo& in : subgraph.inputs()) {
    analysis.inputs.push_back({in.name, std::vector<int64_t>(in.shape.rbegin(), in.shape.rend()), subgraphs::bytes_of(in.dtype)});
  }
  return analysis;
}

}  // namespace ktune::scheduler
