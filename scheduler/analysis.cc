// Entry points: analyze() builds the pipeline once and fills Analysis; the helpers below
// read stages, loops and calls off Halide's Function objects and hand the access
// relations to isl (dependences.h).
#include "scheduler/analysis.h"

#include <map>
#include <set>

#include "scheduler/dependences.h"
#include "scheduler/internal/affine.h"
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

std::string tuple(const std::string& name, const std::vector<std::string>& dims) {
  std::string s = name + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + "]";
}

std::string interval_constraint(const std::string& var, const HI::Interval& iv) {
  const int64_t* lo = iv.min.defined() ? HI::as_const_int(iv.min) : nullptr;
  const int64_t* hi = iv.max.defined() ? HI::as_const_int(iv.max) : nullptr;
  if (lo && hi) return std::to_string(*lo) + " <= " + var + " <= " + std::to_string(*hi);
  if (lo) return std::to_string(*lo) + " <= " + var;
  if (hi) return var + " <= " + std::to_string(*hi);
  return "";
}

int64_t box_extent(const HI::Box& box, size_t d) {
  if (d >= box.size()) return 1;
  const int64_t* lo = HI::as_const_int(box[d].min);
  const int64_t* hi = HI::as_const_int(box[d].max);
  return lo && hi ? *hi - *lo + 1 : 1;
}

// True if `value` is f(args) op e (or e op f(args)) for op in + * min max, with no other
// call to f: the update may be split with rfactor.
bool associative_update(const HI::Function& f, const HI::Definition& def) {
  if (def.values().size() != 1 || def.schedule().rvars().empty()) return false;
  const Halide::Expr& v = def.values()[0];
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
  if (const auto* op = v.as<HI::Add>()) return check(op->a, op->b);
  if (const auto* op = v.as<HI::Mul>()) return check(op->a, op->b);
  if (const auto* op = v.as<HI::Min>()) return check(op->a, op->b);
  if (const auto* op = v.as<HI::Max>()) return check(op->a, op->b);
  return false;
}

}  // namespace

const LoopAnalysis* StageAnalysis::find(const std::string& loop) const {
  for (const LoopAnalysis& l : loops) {
    if (l.name == loop) return &l;
  }
  return nullptr;
}

const LoopAnalysis* StageAnalysis::pure_loop(size_t n) const {
  size_t seen = 0;
  for (const LoopAnalysis& l : loops) {
    if (l.is_reduction) continue;
    if (seen++ == n) return &l;
  }
  return nullptr;
}

const LoopAnalysis* StageAnalysis::first_reduction() const {
  for (const LoopAnalysis& l : loops) {
    if (l.is_reduction) return &l;
  }
  return nullptr;
}

int StageAnalysis::native_lanes(const TargetInfo& target) const {
  return std::max(1, target.vector_lanes * 32 / std::max(8, value_bits));
}

int StageAnalysis::max_vector_width(const TargetInfo& target) const { return std::max(64, 4 * native_lanes(target)); }

int64_t StageAnalysis::pure_iterations() const {
  int64_t n = 1;
  for (const LoopAnalysis& l : loops) {
    if (!l.is_reduction) n *= l.extent;
  }
  return n;
}

int FuncAnalysis::single_consumer() const {
  int only = -1;
  for (const auto& [func, stage] : consumers) {
    if (only >= 0 && only != func) return -1;
    only = func;
  }
  return only;
}

const FuncAnalysis* Analysis::find(const std::string& name) const {
  const int i = index_of(name);
  return i < 0 ? nullptr : &funcs[i];
}

int Analysis::index_of(const std::string& name) const {
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (funcs[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string loop_identifier(const std::string& loop) {
  std::string s = loop;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return s;
}

Analysis analyze(const subgraphs::Subgraph& subgraph, const TargetInfo& target) {
  Analysis analysis;
  analysis.target = target;
  const subgraphs::BuiltPipeline built = subgraph.build();
  const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(built);
  const std::vector<subgraphs::FuncNames> names = subgraphs::canonical_names(funcs);
  // Buffer sizes and scalar values, where definitions mention them (an RDom over an input's
  // width), are the ones ktune runs with.
  const std::map<std::string, Halide::Expr> known =
      subgraphs::known_values(built, subgraph.inputs(), subgraph.outputs(), subgraph.scalars());
  const std::map<std::string, HI::Box> boxes = subgraphs::func_boxes(built, subgraph.outputs(), known);
  std::map<std::string, int> index;
  for (size_t i = 0; i < funcs.size(); ++i) index[funcs[i].name()] = static_cast<int>(i);

  IslContext isl;
  for (size_t i = 0; i < funcs.size(); ++i) {
    const HI::Function f = funcs[i].function();
    FuncAnalysis fa;
    fa.name = names[i].name;
    for (const Halide::Func& o : built.outputs) fa.is_output |= o.name() == f.name();
    fa.args = names[i].args;
    const HI::Box& box = boxes.at(f.name());
    for (size_t d = 0; d < fa.args.size(); ++d) fa.extents.push_back(box_extent(box, d));

    fa.element_bytes = 1;
    for (const Halide::Type& t : f.output_types()) fa.element_bytes = std::max(fa.element_bytes, t.bytes());
    fa.reduced_dims.assign(fa.args.size(), false);
    for (const auto& u : f.updates()) {
      for (size_t d = 0; d < u.args().size() && d < fa.reduced_dims.size(); ++d) {
        const auto* v = u.args()[d].as<HI::Variable>();
        if (!v || v->name != f.args()[d]) fa.reduced_dims[d] = true;
      }
    }
    std::vector<const HI::Definition*> defs = {&f.definition()};
    for (const auto& u : f.updates()) defs.push_back(&u);
    for (size_t s = 0; s < defs.size(); ++s) {
      const HI::Definition& def = *defs[s];
      StageAnalysis sa;
      sa.stage = static_cast<int>(s);
      const subgraphs::StageLoopNames& loop_names = names[i].stages[s];
      // Loops in Halide's initial order, innermost first (the last dim is __outermost).
      // Everything below that reads Halide expressions uses the Halide names of this build.
      std::map<std::string, HI::Interval> ranges;
      std::vector<std::string> halide_loops;  // Halide name of each of sa.loops
      for (const HI::Dim& dim : def.schedule().dims()) {
        if (dim.var == Halide::Var::outermost().name()) continue;
        LoopAnalysis loop;
        loop.name = loop_names.canonical(dim.var);
        loop.is_reduction = dim.is_rvar();
        if (loop.is_reduction) {
          for (const HI::ReductionVariable& rv : def.schedule().rvars()) {
            if (rv.var != dim.var) continue;
            const Halide::Expr min = HI::simplify(subgraphs::with_known_values(rv.min, known));
            const Halide::Expr extent = HI::simplify(subgraphs::with_known_values(rv.extent, known));
            const int64_t* e = HI::as_const_int(extent);
            loop.extent = e ? *e : 1;
            ranges[dim.var] = HI::Interval(min, HI::simplify(min + extent - 1));
          }
        } else {
          for (size_t a = 0; a < f.args().size(); ++a) {
            if (f.args()[a] != dim.var) continue;
            loop.extent = fa.extents[a];
            if (a < box.size()) ranges[dim.var] = box[a];
          }
        }
        sa.loops.push_back(loop);
        halide_loops.push_back(dim.var);
      }
      // isl names, outermost first.
      std::vector<std::string> dims;
      std::map<std::string, std::string> isl_vars;
      for (int l = static_cast<int>(sa.loops.size()) - 1; l >= 0; --l) {
        const std::string n = "d" + std::to_string(dims.size());
        isl_vars[halide_loops[l]] = n;
        dims.push_back(n);
      }
      std::string constraints;
      for (const std::string& l : halide_loops) {
        auto it = ranges.find(l);
        if (it == ranges.end()) continue;
        const std::string c = interval_constraint(isl_vars[l], it->second);
        if (!c.empty()) constraints += (constraints.empty() ? "" : " and ") + c;
      }
      const std::string stmt = tuple("S", dims);
      sa.domain = "{ " + stmt + (constraints.empty() ? "" : " : " + constraints) + " }";

      auto relation = [&](const std::string& target_name, const std::vector<Halide::Expr>& args, bool& affine) {
        std::vector<std::string> idx;
        affine = true;
        for (const Halide::Expr& a : args) {
          auto e = to_isl_affine(a, isl_vars);
          if (!e) {
            affine = false;
            break;
          }
          idx.push_back(*e);
        }
        if (affine) return "{ " + stmt + " -> " + tuple(target_name, idx) + " }";
        std::vector<std::string> outs;
        for (size_t k = 0; k < args.size(); ++k) outs.push_back("o" + std::to_string(k));
        return "{ " + stmt + " -> " + tuple(target_name, outs) + " }";
      };
      bool write_affine = true;
      std::vector<Halide::Expr> args, values;
      for (const Halide::Expr& e : def.args()) args.push_back(subgraphs::with_known_values(e, known));
      for (const Halide::Expr& e : def.values()) values.push_back(subgraphs::with_known_values(e, known));
      sa.write = relation("F" + std::to_string(i), args, write_affine);

      CallCollector cc;
      for (const Halide::Expr& e : values) e.accept(&cc);
      for (const Halide::Expr& e : args) e.accept(&cc);
      sa.arith_ops = cc.arith;
      ValueBits vb;
      for (const Halide::Expr& e : values) {
        vb.bits = std::max(vb.bits, e.type().bits());
        e.accept(&vb);
      }
      sa.value_bits = vb.bits;
      std::string self_reads;
      for (const HI::Call* call : cc.calls) {
        ProducerUse use;
        if (call->call_type == HI::Call::Halide && call->func.defined() &&
            subgraphs::wrapped_input(HI::Function(call->func)).defined()) {
          use.name = subgraphs::wrapped_input(HI::Function(call->func)).name();
        } else if (call->call_type == HI::Call::Halide) {
          auto it = index.find(call->name);
          use.func = it == index.end() ? -1 : it->second;
          use.name = use.func >= 0 ? names[use.func].name : call->name;
        } else {
          use.name = call->name;
        }
        use.element_bytes = std::max(1, call->type.bytes());
        const std::string target_name = use.func >= 0 ? "F" + std::to_string(use.func) : "in_" + loop_identifier(use.name);
        use.access = relation(target_name, call->args, use.affine);
        VariableNames vn;
        for (const Halide::Expr& a : call->args) a.accept(&vn);
        VariableNames first;
        if (!call->args.empty()) call->args[0].accept(&first);
        for (size_t l = 0; l < sa.loops.size(); ++l) {
          if (vn.names.count(halide_loops[l])) use.index_loops.push_back(sa.loops[l].name);
          if (first.names.count(halide_loops[l])) use.contiguous_loops.push_back(sa.loops[l].name);
        }
        for (const Halide::Expr& a : call->args) {
          VariableNames in_index;
          a.accept(&in_index);
          use.dim_loops.emplace_back();
          for (size_t l = 0; l < sa.loops.size(); ++l) {
            if (in_index.names.count(halide_loops[l])) use.dim_loops.back().push_back(sa.loops[l].name);
          }
        }
        if (use.func == static_cast<int>(i)) {
          // Reading itself: a non-affine self access makes every loop suspect.
          self_reads += (self_reads.empty() ? "" : "; ") + use.access.substr(2, use.access.size() - 4);
          if (!use.affine) write_affine = false;
        }
        sa.uses.push_back(use);
      }
      if (s > 0) {
        const LoopDependences deps =
            write_affine ? loop_dependences(isl, sa.domain, sa.write, self_reads.empty() ? "" : "{ " + self_reads + " }",
                                            static_cast<int>(dims.size()))
                         : LoopDependences{std::vector<bool>(dims.size(), true), "non-affine self access"};
        if (deps.status != "ok") analysis.isl_status = fa.name + ": " + deps.status;
        for (size_t l = 0; l < sa.loops.size(); ++l) {
          sa.loops[l].carries_dependence = deps.carries[sa.loops.size() - 1 - l];
        }
        sa.rfactor_ok = associative_update(f, def);
      }
      fa.stages.push_back(sa);
    }
    analysis.funcs.push_back(fa);
  }
  for (size_t i = 0; i < analysis.funcs.size(); ++i) {
    for (const StageAnalysis& sa : analysis.funcs[i].stages) {
      for (const ProducerUse& use : sa.uses) {
        if (use.func < 0 || use.func == static_cast<int>(i)) continue;
        auto& consumers = analysis.funcs[use.func].consumers;
        const std::pair<int, int> c{static_cast<int>(i), sa.stage};
        if (std::find(consumers.begin(), consumers.end(), c) == consumers.end()) consumers.push_back(c);
      }
    }
  }
  return analysis;
}

}  // namespace ktune::scheduler
