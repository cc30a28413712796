// Entry points: apply() walks the schedule once (compute locations, input packs, then each
// stage's loops), making each Halide scheduling call and writing the same call as C++ text;
// lower() and loop_nest_text() inspect the result.
#include "scheduler/apply.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "scheduler/internal/pack_copy.h"
#include "scheduler/loop_nest.h"
#include "scheduler/tail_strategy.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/canonical_names.h"
#include "subgraphs/subgraph.h"
#include "targets/host_target.h"

namespace ktune::scheduler {
namespace {

// A Func of the pipeline being scheduled: its handle and the Halide names of its loops.
struct FuncHandle {
  Halide::Func func;
  subgraphs::FuncNames names;
};

// Emits Halide calls and their C++ text together. Schedules name Funcs and loops by their
// canonical names (subgraphs/canonical_names.h); every call goes to the Halide names of
// the pipeline at hand.
class Applier {
 public:
  // `inputs`: the Func through which the pipeline reads each packed input.
  Applier(const Analysis& analysis, std::map<std::string, FuncHandle> funcs, std::map<std::string, Halide::Func> inputs)
      : analysis_(analysis), funcs_(std::move(funcs)), inputs_(std::move(inputs)) {}

  // The C++ identifier of loop `loop` of the stage being scheduled (names_): its canonical
  // name made identifier-safe, "_v" appended while a Func or a packed input has that name
  // (a Func "y" and a Var "y" cannot share it), and "_2", "_3", ... when another Halide
  // variable has it already (two Funcs whose unnamed Vars are both "v").
  std::string ident(const std::string& loop) {
    const std::string halide_name = names_ ? names_->halide(loop) : loop;
    if (auto it = idents_.find(halide_name); it != idents_.end()) return it->second;
    std::string base = loop_identifier(loop);
    while (funcs_.count(base) || inputs_.count(base)) base += "_v";
    std::string id = base;
    for (int n = 2; taken_idents_.count(id); ++n) id = base + "_" + std::to_string(n);
    taken_idents_.insert(id);
    idents_[halide_name] = id;
    return id;
  }

  void apply(const Schedule& schedule) {
    for (const FuncSchedule& fs : schedule.funcs) {
      apply_compute(fs, schedule);
      apply_storage(fs);
    }
    for (const InputPack& pack : schedule.packs) apply_pack(pack, schedule);
    for (const FuncSchedule& fs : schedule.funcs) {
      for (const StageSchedule& st : fs.stages) apply_stage(fs, st);
      mark_unscheduled_updates(fs);
      align_rounded_extents(fs);
    }
  }

  std::string source(const Schedule& schedule, const std::string& workload) const {
    std::ostringstream os;
    os << "// ktune schedule " << schedule.hash() << " for " << workload << " (Halide 14).\n";
    os << "// Expects a Func handle named after each Func it schedules"
       << (schedule.packs.empty() ? "" : ", and the ImageParam (or Input buffer) of each input it packs") << ".\n{\n  using namespace Halide;\n";
    declare(os, "Var", vars_);
    declare(os, "RVar", rvars_);
    os << body_.str() << "}\n";
    return os.str();
  }

 private:
  // Updates the schedule leaves at Halide's defaults while it schedules another stage of
  // the Func: said so explicitly, which is also what keeps Halide from warning about them.
  void mark_unscheduled_updates(const FuncSchedule& fs) {
    if (fs.stages.empty() || fs.compute.kind == ComputeLocation::Kind::kInline) return;
    Halide::Func f = funcs_.at(fs.func).func;
    for (int k = 1; k < static_cast<int>(funcs_.at(fs.func).names.stages.size()); ++k) {
      const bool listed = std::any_of(fs.stages.begin(), fs.stages.end(), [k](const StageSchedule& st) { return st.stage == k; });
      if (listed) continue;
      f.update(k - 1).unscheduled();
      body_ << "  " << fs.func << ".update(" << k - 1 << ").unscheduled();\n";
    }
  }

  // "  Var x("x"), y_o("y_o");" for the loops used, each under its identifier and with its
  // Halide name in this build.
  void declare(std::ostream& os, const char* kind, const std::set<std::string>& loops) const {
    if (loops.empty()) return;
    os << "  " << kind;
    bool first = true;
    for (const std::string& halide_name : loops) {
      os << (first ? " " : ", ") << idents_.at(halide_name) << "(\"" << halide_name << "\")";
      first = false;
    }
    os << ";\n";
  }

  // The Halide names of the loops of `func`'s stage `stage`.
  const subgraphs::StageLoopNames& stage_names(const std::string& func, int stage) const {
    const subgraphs::FuncNames& names = funcs_.at(func).names;
    if (stage < 0 || stage >= static_cast<int>(names.stages.size())) throw Halide::CompileError(func + " has no stage " + std::to_string(stage));
    return names.stages[stage];
  }

  // Whether `loop` of stage `stage` of `func` is a reduction loop (original or split piece).
  bool is_rvar(const std::string& func, int stage, const Schedule* schedule, const std::string& loop) const {
    const FuncAnalysis* fa = analysis_.find(func);
    if (!fa || stage >= static_cast<int>(fa->stages.size())) return false;
    StageSchedule st;
    st.stage = stage;
    if (schedule) {
      if (const FuncSchedule* fs = schedule->find(func)) {
        for (const StageSchedule& x : fs->stages) {
          if (x.stage == stage) st = x;
        }
      }
    }
    std::string error;
    const auto nest = build_loop_nest(fa->stages[stage], st, &error);
    const NestLoop* l = nest ? nest->find(loop) : nullptr;
    return l && l->is_reduction;
  }

  // The Halide variable of loop `name` (canonical, or a split product) of the stage being
  // scheduled (names_).
  Halide::VarOrRVar loop_var(const std::string& name, bool rvar) {
    const std::string halide_name = names_->halide(name);
    ident(name);  // named in the source from its first use on
    (rvar ? rvars_ : vars_).insert(halide_name);
    if (rvar) return Halide::VarOrRVar(Halide::RVar(halide_name));
    return Halide::VarOrRVar(Halide::Var(halide_name));
  }

  // A packed copy of an input: `input.in()` at its location, its loops as pack_copy.h lays
  // them out.
  void apply_pack(const InputPack& pack, const Schedule& schedule) {
    const auto wrapped = inputs_.find(pack.input);
    if (wrapped == inputs_.end() || !wrapped->second.defined()) {
      throw Halide::CompileError("no Func reads input \"" + pack.input + "\", which the schedule packs");
    }
    Halide::Func w = wrapped->second.in();
    std::string id = loop_identifier(pack.input) + "_pack";
    while (funcs_.count(id)) id += "_";
    body_ << "  Func " << id << " = " << pack.input << ".in();\n";
    if (pack.compute.kind == ComputeLocation::Kind::kAt) {
      Halide::Func c = funcs_.at(pack.compute.consumer).func;
      const bool rvar = is_rvar(pack.compute.consumer, pack.compute.consumer_stage, &schedule, pack.compute.loop);
      names_ = &stage_names(pack.compute.consumer, pack.compute.consumer_stage);
      w.compute_at(Halide::LoopLevel(c, loop_var(pack.compute.loop, rvar)));
      body_ << "  " << id << ".compute_at(" << pack.compute.consumer << ", " << ident(pack.compute.loop) << ");\n";
    } else {
      w.compute_root();
      body_ << "  " << id << ".compute_root();\n";
    }
    const InputAnalysis* input = analysis_.find_input(pack.input);
    if (!input) throw Halide::CompileError("the schedule packs \"" + pack.input + "\", which is no input");
    schedule_pack_copy(w, id, pack, *input, body_);
  }

  void apply_compute(const FuncSchedule& fs, const Schedule& schedule) {
    Halide::Func f = funcs_.at(fs.func).func;
    switch (fs.compute.kind) {
      case ComputeLocation::Kind::kInline:
        body_ << "  // " << fs.func << " is inlined\n";
        break;
      case ComputeLocation::Kind::kRoot:
        f.compute_root();
        body_ << "  " << fs.func << ".compute_root();\n";
        break;
      case ComputeLocation::Kind::kAt: {
        Halide::Func c = funcs_.at(fs.compute.consumer).func;
        const bool rvar = is_rvar(fs.compute.consumer, fs.compute.consumer_stage, &schedule, fs.compute.loop);
        // Halide 14 only accepts the default stage index (the consumer's last stage); the
        // Space offers only loops of that stage.
        names_ = &stage_names(fs.compute.consumer, fs.compute.consumer_stage);
        f.compute_at(Halide::LoopLevel(c, loop_var(fs.compute.loop, rvar)));
        compute_loop_idents_[fs.func] = ident(fs.compute.loop);
        body_ << "  " << fs.func << ".compute_at(" << fs.compute.consumer << ", " << compute_loop_idents_[fs.func] << ");\n";
        if (fs.compute.sliding()) {
          const bool store_rvar = is_rvar(fs.compute.consumer, fs.compute.consumer_stage, &schedule, fs.compute.store_loop);
          f.store_at(Halide::LoopLevel(c, loop_var(fs.compute.store_loop, store_rvar)));
          body_ << "  " << fs.func << ".store_at(" << fs.compute.consumer << ", " << ident(fs.compute.store_loop) << ");\n";
          if (fs.compute.fold_rows > 0) fold_rows(fs);
        }
        break;
      }
    }
  }

  // A window's buffer folded to its `fold_rows` rows along its second pure variable.
  void fold_rows(const FuncSchedule& fs) {
    const FuncAnalysis* fa = analysis_.find(fs.func);
    if (!fa || fa->args.size() < 2) throw Halide::CompileError(fs.func + ": fold_rows needs a second dimension");
    names_ = &stage_names(fs.func, 0);
    funcs_.at(fs.func).func.fold_storage(loop_var(fa->args[1], false).var, static_cast<int>(fs.compute.fold_rows));
    body_ << "  " << fs.func << ".fold_storage(" << ident(fa->args[1]) << ", " << fs.compute.fold_rows << ");\n";
  }

  // A region as long as the updates' round_up tails make it: Halide sizes the buffer by what
  // the pure definition computes, and an update rounding further would write past it.
  void align_rounded_extents(const FuncSchedule& fs) {
    if (fs.compute.kind == ComputeLocation::Kind::kInline) return;
    const FuncAnalysis* fa = analysis_.find(fs.func);
    if (!fa) return;
    for (const auto& [var, multiple] : update_round_ups(*fa, fs)) {
      if (multiple < 2) continue;
      names_ = &stage_names(fs.func, 0);
      funcs_.at(fs.func).func.align_extent(loop_var(var, false).var, static_cast<int>(multiple));
      body_ << "  " << fs.func << ".align_extent(" << ident(var) << ", " << multiple << ");\n";
    }
  }

  // The Func's buffer stored with its pure variables in `storage` order, innermost first.
  void apply_storage(const FuncSchedule& fs) {
    if (fs.storage.empty() || fs.compute.kind == ComputeLocation::Kind::kInline) return;
    names_ = &stage_names(fs.func, 0);
    std::vector<Halide::Var> order;
    std::string listed;
    for (const std::string& dim : fs.storage) {
      order.push_back(loop_var(dim, false).var);
      listed += (listed.empty() ? "" : ", ") + ident(dim);
    }
    funcs_.at(fs.func).func.reorder_storage(order);
    body_ << "  " << fs.func << ".reorder_storage(" << listed << ");\n";
  }

  void apply_stage(const FuncSchedule& fs, const StageSchedule& st) {
    Halide::Func f = funcs_.at(fs.func).func;
    names_ = &stage_names(fs.func, st.stage);
    Halide::Stage s = st.stage == 0 ? Halide::Stage(f) : f.update(st.stage - 1);
    const std::string label = st.stage == 0 ? fs.func : fs.func + ".update(" + std::to_string(st.stage - 1) + ")";
    const FuncAnalysis& fa = *analysis_.find(fs.func);
    auto rvar = [&](const std::string& loop) {
      for (const LoopSplit& sp : st.splits) {
        if (sp.outer == loop || sp.inner == loop) return splits_reduction(fa.stages[st.stage], st, sp);
      }
      const LoopAnalysis* l = fa.stages[st.stage].find(loop);
      return l && l->is_reduction;
    };
    if (st.rfactor && st.rfactor->on_gpu()) {
      apply_gpu_rfactor(f, s, fs.func, label, fa.stages[st.stage], st, rvar);
      return;
    }
    if (st.rfactor) {
      apply_cpu_rfactor(fs, s, label, fa.stages[st.stage], st);
      return;
    }
    for (const LoopSplit& sp : st.splits) split(s, label, sp, splits_reduction(fa.stages[st.stage], st, sp));
    reorder(s, label, st.order, rvar);
    if (!st.parallel.empty()) {
      std::string fused = st.parallel[0];
      for (size_t i = 1; i < st.parallel.size(); ++i) {
        const std::string next = fused + "_" + st.parallel[i];
        s.fuse(loop_var(st.parallel[i], false), loop_var(fused, false), loop_var(next, false));
        body_ << "  " << label << ".fuse(" << ident(st.parallel[i]) << ", " << ident(fused) << ", "
              << ident(next) << ");\n";
        fused = next;
      }
      s.parallel(loop_var(fused, false));
      body_ << "  " << label << ".parallel(" << ident(fused) << ");\n";
    }
    apply_gpu(f, s, fs.func, label, st, rvar);
    if (!st.vector_reduce.empty()) {
      // Innermost, inside the vectorized pure loop: each lane of the pure vector sums the
      // reduction piece's products in one dot-product instruction.
      s.atomic().vectorize(loop_var(st.vector_reduce, true));
      body_ << "  " << label << ".atomic().vectorize(" << ident(st.vector_reduce) << ");\n";
    }
    if (!st.vectorize.empty()) {
      s.vectorize(loop_var(st.vectorize, rvar(st.vectorize)));
      body_ << "  " << label << ".vectorize(" << ident(st.vectorize) << ");\n";
    }
    for (const std::string& u : st.unroll) {
      s.unroll(loop_var(u, rvar(u)));
      body_ << "  " << label << ".unroll(" << ident(u) << ");\n";
    }
  }

  // A CPU rfactor: the reduction splits, then the intermediate "<func>_intm" (the Func's
  // pure variables, unsplit, then u) at
  // root or where the Func is, parallel or vectorized over u; with pure_vector its update
  // runs the Func's pure loops innermost, the innermost split and vectorized, then the
  // remaining reduction loops, then u. What remains of the stage (a reduction over u)
  // keeps its pure loops, the outermost of them parallel and one of them vectorized (moved
  // inside the loop over u) if asked.
  void apply_cpu_rfactor(const FuncSchedule& fs, Halide::Stage s, const std::string& label, const StageAnalysis& sa,
                         const StageSchedule& st) {
    const RFactor& rf = *st.rfactor;
    const std::vector<std::string> reductions = remaining_reductions(sa, st, rf.loop);
    Halide::Func intm = split_off_intermediate(s, fs.func, label, sa, st);
    const std::string iname = fs.func + "_intm";
    const std::string u = ident("u");
    if (rf.at_func && fs.compute.kind == ComputeLocation::Kind::kAt) {
      intm.compute_at(funcs_.at(fs.func).func.function().schedule().compute_level());
      body_ << "  " << iname << ".compute_at(" << fs.compute.consumer << ", " << compute_loop_idents_.at(fs.func) << ");\n";
    } else {
      intm.compute_root();
      body_ << "  " << iname << ".compute_root();\n";
    }
    if (rf.vectorize_u) {
      // u innermost in storage and in the pure stage, so the partial results are whole vectors.
      std::vector<std::string> pure = {"u"};
      for (size_t i = 0; sa.pure_loop(i); ++i) pure.push_back(sa.pure_loop(i)->name);
      if (pure.size() > 1) {
        std::vector<Halide::Var> storage;
        body_ << "  " << iname << ".reorder_storage(";
        for (size_t i = 0; i < pure.size(); ++i) {
          storage.push_back(loop_var(pure[i], false).var);
          body_ << (i ? ", " : "") << ident(pure[i]);
        }
        body_ << ");\n";
        intm.reorder_storage(storage);
        reorder(Halide::Stage(intm), iname, pure, [](const std::string&) { return false; });
      }
      intm.vectorize(Halide::Var("u"));
      intm.update(0).vectorize(Halide::Var("u"));
      body_ << "  " << iname << ".vectorize(" << u << ");\n  " << iname << ".update(0).vectorize(" << u << ");\n";
    } else {
      intm.parallel(Halide::Var("u"));
      intm.update(0).parallel(Halide::Var("u"));
      body_ << "  " << iname << ".parallel(" << u << ");\n  " << iname << ".update(0).parallel(" << u << ");\n";
    }
    if (rf.pure_vector >= 2 && sa.pure_loop(0)) vectorize_intermediate_pure_loop(intm, iname, sa, st, reductions);
    // What remains of the stage: its pure loops, split as the stage says.
    for (const LoopSplit& sp : st.splits) {
      if (!splits_reduction(sa, st, sp)) split(s, label, sp, false);
    }
    if (!st.parallel.empty()) {
      s.parallel(loop_var(st.parallel[0], false));
      body_ << "  " << label << ".parallel(" << ident(st.parallel[0]) << ");\n";
    }
    if (!st.vectorize.empty()) {
      // The reduction over u runs inside the vectorized pure loop.
      s.reorder(loop_var(st.vectorize, false), loop_var(rf.loop, true));
      s.vectorize(loop_var(st.vectorize, false));
      body_ << "  " << label << ".reorder(" << ident(st.vectorize) << ", " << ident(rf.loop) << ");\n  " << label
            << ".vectorize(" << ident(st.vectorize) << ");\n";
    }
    for (const std::string& loop : st.unroll) {
      if (std::find(reductions.begin(), reductions.end(), loop) != reductions.end()) continue;  // unrolled in the intermediate
      s.unroll(loop_var(loop, false));
      body_ << "  " << label << ".unroll(" << ident(loop) << ");\n";
    }
  }

  // The reduction splits of `st`, then rfactor of its rfactor loop: returns the intermediate
  // "<func>_intm", whose pure variables are the Func's and then u.
  Halide::Func split_off_intermediate(Halide::Stage s, const std::string& func, const std::string& label,
                                      const StageAnalysis& sa, const StageSchedule& st) {
    for (const LoopSplit& sp : st.splits) {
      if (splits_reduction(sa, st, sp)) split(s, label, sp, true);
    }
    vars_.insert("u");
    const Halide::RVar reduced = loop_var(st.rfactor->loop, true).rvar;
    Halide::Func intm = s.rfactor(reduced, Halide::Var("u"));
    body_ << "  Func " << func << "_intm = " << label << ".rfactor(" << ident(st.rfactor->loop) << ", " << ident("u")
          << ");\n";
    return intm;
  }

  // The reduction loops of `st` (after its splits) other than `rfactored`, innermost first.
  static std::vector<std::string> remaining_reductions(const StageAnalysis& sa, const StageSchedule& st,
                                                       const std::string& rfactored) {
    std::vector<std::string> out;
    std::string error;
    const auto nest = build_loop_nest(sa, st, &error);
    if (!nest) throw Halide::CompileError(error);
    for (const NestLoop& l : nest->loops) {
      if (l.is_reduction && l.name != rfactored) out.push_back(l.name);
    }
    return out;
  }

  // pure_vector: both stages of the intermediate split the Func's innermost pure loop by the
  // width and vectorize its inner piece; the update then runs [inner, the reduction pieces the
  // stage unrolls (several rows per pass over the vector), outer, the other pure loops, the
  // remaining reduction loops, u], innermost first.
  void vectorize_intermediate_pure_loop(Halide::Func intm, const std::string& iname, const StageAnalysis& sa,
                                        const StageSchedule& st, const std::vector<std::string>& reductions) {
    const std::string x = sa.pure_loop(0)->name;
    const std::string outer = loop_identifier(x) + "_vo", inner = loop_identifier(x) + "_vi";
    std::vector<std::string> unrolled, rolled;
    for (const std::string& r : reductions) {
      (std::find(st.unroll.begin(), st.unroll.end(), r) != st.unroll.end() ? unrolled : rolled).push_back(r);
    }
    std::vector<std::string> order = {inner};
    order.insert(order.end(), unrolled.begin(), unrolled.end());
    order.push_back(outer);
    for (size_t i = 1; sa.pure_loop(i); ++i) order.push_back(sa.pure_loop(i)->name);
    order.insert(order.end(), rolled.begin(), rolled.end());
    order.push_back("u");
    const auto is_rvar = [&](const std::string& loop) {
      return std::find(reductions.begin(), reductions.end(), loop) != reductions.end();
    };
    for (int k = 0; k < 2; ++k) {
      Halide::Stage is = k == 0 ? Halide::Stage(intm) : intm.update(0);
      const std::string ilabel = k == 0 ? iname : iname + ".update(0)";
      split(is, ilabel, LoopSplit{x, outer, inner, st.rfactor->pure_vector}, false);
      if (k == 1) reorder(is, ilabel, order, is_rvar);
      is.vectorize(loop_var(inner, false));
      body_ << "  " << ilabel << ".vectorize(" << ident(inner) << ");\n";
      if (k == 0) continue;
      for (const std::string& r : unrolled) {
        is.unroll(loop_var(r, true));
        body_ << "  " << ilabel << ".unroll(" << ident(r) << ");\n";
      }
    }
  }

  // One split of a stage. Pure loops keep to their region by default (GuardWithIf): rounding
  // up would read inputs beyond their fixed bounds; a schedule may shift the last tile
  // inwards or round up where that is safe (scheduler/tail_strategy.h). Reduction loops use
  // Halide's default (also guarded).
  void split(Halide::Stage s, const std::string& label, const LoopSplit& sp, bool r) {
    Halide::TailStrategy tail = Halide::TailStrategy::Auto;
    const char* text = "";
    if (!r) {
      tail = sp.tail == Tail::kShiftInwards ? Halide::TailStrategy::ShiftInwards
             : sp.tail == Tail::kRoundUp    ? Halide::TailStrategy::RoundUp
                                            : Halide::TailStrategy::GuardWithIf;
      text = sp.tail == Tail::kShiftInwards ? ", TailStrategy::ShiftInwards"
             : sp.tail == Tail::kRoundUp    ? ", TailStrategy::RoundUp"
                                            : ", TailStrategy::GuardWithIf";
    }
    s.split(loop_var(sp.loop, r), loop_var(sp.outer, r), loop_var(sp.inner, r), static_cast<int>(sp.factor), tail);
    body_ << "  " << label << ".split(" << ident(sp.loop) << ", " << ident(sp.outer) << ", "
          << ident(sp.inner) << ", " << sp.factor << text << ");\n";
  }

  // reorder() over `loops` (innermost first); a single loop has nothing to reorder.
  template <typename IsRVar>
  void reorder(Halide::Stage s, const std::string& label, const std::vector<std::string>& loops, const IsRVar& rvar) {
    if (loops.size() < 2) return;
    std::vector<Halide::VarOrRVar> order;
    body_ << "  " << label << ".reorder(";
    for (size_t i = 0; i < loops.size(); ++i) {
      order.push_back(loop_var(loops[i], rvar(loops[i])));
      body_ << (i ? ", " : "") << ident(loops[i]);
    }
    body_ << ");\n";
    s.reorder(order);
  }

  // Maps `loops` (innermost first, as Halide's x, y, z) to GPU blocks or threads.
  template <typename IsRVar>
  void map_gpu(Halide::Stage s, const std::string& label, const std::vector<std::string>& loops, bool blocks,
               const IsRVar& rvar) {
    if (loops.empty()) return;
    if (loops.size() > 3) throw Halide::CompileError("at most 3 GPU " + std::string(blocks ? "block" : "thread") + " loops");
    std::vector<Halide::VarOrRVar> v;
    body_ << "  " << label << (blocks ? ".gpu_blocks(" : ".gpu_threads(");
    for (size_t i = 0; i < loops.size(); ++i) {
      v.push_back(loop_var(loops[i], rvar(loops[i])));
      body_ << (i ? ", " : "") << ident(loops[i]);
    }
    body_ << ");\n";
    if (v.size() == 1) {
      blocks ? s.gpu_blocks(v[0]) : s.gpu_threads(v[0]);
    } else if (v.size() == 2) {
      blocks ? s.gpu_blocks(v[0], v[1]) : s.gpu_threads(v[0], v[1]);
    } else {
      blocks ? s.gpu_blocks(v[0], v[1], v[2]) : s.gpu_threads(v[0], v[1], v[2]);
    }
  }

  // A GPU rfactor (scheduler/gpu_rfactor.h). Halide 14 takes, in this order: the
  // reduction splits; rfactor of the piece that becomes u, which returns the intermediate
  // "<func>_intm" with the Func's pure variables and then u as its arguments; the
  // intermediate's pure stage (loops: pure variables, then u) and its update (loops: u,
  // the remaining reduction pieces, the pure variables) each reordered as the reduction
  // pieces, the thread loops, the block loops, and mapped; and last what remains of the
  // stage (a reduction over u, still named after the rfactored piece) with its pure splits
  // and mapping, scheduled through the same Stage handle.
  template <typename IsRVar>
  void apply_gpu_rfactor(Halide::Func f, Halide::Stage s, const std::string& func, const std::string& label,
                         const StageAnalysis& sa, const StageSchedule& st, const IsRVar& rvar) {
    const RFactor& rf = *st.rfactor;
    // The intermediate update's reduction loops, innermost first.
    const std::vector<std::string> reductions = remaining_reductions(sa, st, rf.loop);
    Halide::Func intm = split_off_intermediate(s, func, label, sa, st);
    const std::string iname = func + "_intm";
    intm.compute_root();
    body_ << "  " << iname << ".compute_root();\n";
    const auto is_rvar = [&](const std::string& loop) {
      return std::find(reductions.begin(), reductions.end(), loop) != reductions.end();
    };
    for (int k = 0; k < 2; ++k) {
      Halide::Stage is = k == 0 ? Halide::Stage(intm) : intm.update(0);
      const std::string ilabel = k == 0 ? iname : iname + ".update(0)";
      for (const LoopSplit& sp : rf.splits) split(is, ilabel, sp, false);
      std::vector<std::string> order = k == 0 ? std::vector<std::string>{} : reductions;
      order.insert(order.end(), rf.gpu.threads.begin(), rf.gpu.threads.end());
      order.insert(order.end(), rf.gpu.blocks.begin(), rf.gpu.blocks.end());
      reorder(is, ilabel, order, is_rvar);
      map_gpu(is, ilabel, rf.gpu.blocks, true, is_rvar);
      map_gpu(is, ilabel, rf.gpu.threads, false, is_rvar);
    }
    // What remains of the stage: its pure loops.
    for (const LoopSplit& sp : st.splits) {
      if (!splits_reduction(sa, st, sp)) split(s, label, sp, false);
    }
    apply_gpu(f, s, func, label, st, rvar);
    for (const std::string& u : st.unroll) {
      s.unroll(loop_var(u, rvar(u)));
      body_ << "  " << label << ".unroll(" << ident(u) << ");\n";
    }
  }

  // GPU mapping: block and thread loops (innermost first, as Halide's x, y, z) and where
  // the Func is stored. Applied after the reorder, so the loops are in their final nesting.
  template <typename IsRVar>
  void apply_gpu(Halide::Func f, Halide::Stage s, const std::string& func, const std::string& label,
                 const StageSchedule& st, const IsRVar& rvar) {
    map_gpu(s, label, st.gpu.blocks, true, rvar);
    map_gpu(s, label, st.gpu.threads, false, rvar);
    if (st.gpu.memory == "shared") {
      f.store_in(Halide::MemoryType::GPUShared);
      body_ << "  " << func << ".store_in(MemoryType::GPUShared);\n";
    } else if (st.gpu.memory == "register") {
      f.store_in(Halide::MemoryType::Register);
      body_ << "  " << func << ".store_in(MemoryType::Register);\n";
    } else if (!st.gpu.memory.empty()) {
      throw Halide::CompileError("unknown GPU memory \"" + st.gpu.memory + "\" for " + func);
    }
  }

  const Analysis& analysis_;
  std::map<std::string, FuncHandle> funcs_;  // by canonical name
  std::map<std::string, Halide::Func> inputs_;  // packed input -> the Func that reads it
  const subgraphs::StageLoopNames* names_ = nullptr;  // the stage being scheduled
  std::set<std::string> vars_, rvars_;                // Halide names of the loops used, for the declarations
  std::map<std::string, std::string> idents_;         // Halide name -> C++ identifier in the source
  std::set<std::string> taken_idents_;
  std::map<std::string, std::string> compute_loop_idents_;  // Func computed at a loop -> that loop's identifier
  std::ostringstream body_;
};

}  // namespace

ApplyResult apply(const Schedule& schedule, const subgraphs::Subgraph& subgraph, const Analysis& analysis) {
  return apply_to(schedule, std::make_shared<subgraphs::BuiltPipeline>(subgraph.build()), analysis, subgraph.name());
}

ApplyResult apply_to(const Schedule& schedule, std::shared_ptr<subgraphs::BuiltPipeline> built,
                     const Analysis& analysis, const std::string& workload) {
  ApplyResult result;
  const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(*built);
  const std::vector<subgraphs::FuncNames> names = subgraphs::canonical_names(funcs);
  std::map<std::string, FuncHandle> by_name;
  for (size_t i = 0; i < funcs.size(); ++i) by_name.emplace(names[i].name, FuncHandle{funcs[i], names[i]});
  for (const FuncSchedule& fs : schedule.funcs) {
    if (!by_name.count(fs.func) || !analysis.find(fs.func)) {
      result.error = "the schedule names Func \"" + fs.func + "\", which this subgraph does not have";
      return result;
    }
  }
  std::map<std::string, Halide::Func> inputs;
  for (const InputPack& pack : schedule.packs) inputs[pack.input] = subgraphs::input_wrapper(*built, pack.input);
  Applier applier(analysis, by_name, inputs);
  try {
    applier.apply(schedule);
  } catch (const Halide::Error& e) {
    result.error = e.what();
    return result;
  }
  result.source = applier.source(schedule, workload);
  result.built = built;
  result.ok = true;
  return result;
}

std::function<void(const subgraphs::BuiltPipeline&)> make_applier(Schedule schedule, const Analysis& analysis) {
  return [schedule = std::move(schedule), &analysis](const subgraphs::BuiltPipeline& built) {
    // The pipeline's Funcs are handles: scheduling a copy schedules the caller's pipeline.
    const ApplyResult r = apply_to(schedule, std::make_shared<subgraphs::BuiltPipeline>(built), analysis, "");
    if (!r.ok) throw Halide::CompileError(r.error);
  };
}

}  // namespace ktune::scheduler
