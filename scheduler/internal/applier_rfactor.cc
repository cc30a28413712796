// rfactor as Applier applies it: on a CPU (the intermediate at root or where the Func is,
// parallel or vectorized over u) and on a GPU (the intermediate's stages mapped to blocks
// and threads).
#include <algorithm>

#include "scheduler/internal/applier.h"
#include "scheduler/loop_nest.h"

namespace ktune::scheduler {

void Applier::apply_cpu_rfactor(const FuncSchedule& fs, Halide::Stage s, const std::string& label, const StageAnalysis& sa,
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

Halide::Func Applier::split_off_intermediate(Halide::Stage s, const std::string& func, const std::string& label,
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

std::vector<std::string> Applier::remaining_reductions(const StageAnalysis& sa, const StageSchedule& st,
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

void Applier::vectorize_intermediate_pure_loop(Halide::Func intm, const std::string& iname, const StageAnalysis& sa,
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

void Applier::apply_gpu_rfactor(Halide::Func f, Halide::Stage s, const std::string& func, const std::string& label,
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

}  // namespace ktune::scheduler
