#include "scheduler/internal/applier.h"

#include <algorithm>

#include "scheduler/internal/pack_copy.h"
#include "scheduler/loop_nest.h"
#include "scheduler/tail_strategy.h"

namespace ktune::scheduler {

std::string Applier::ident(const std::string& loop) {
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

void Applier::apply(const Schedule& schedule) {
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
  for (const FuncSchedule& fs : schedule.funcs) apply_compute_with(fs);
}

std::string Applier::source(const Schedule& schedule, const std::string& workload) const {
  std::ostringstream os;
  os << "// ktune schedule " << schedule.hash() << " for " << workload << " (Halide 14).\n";
  os << "// Expects a Func handle named after each Func it schedules"
     << (schedule.packs.empty() ? "" : ", and the ImageParam (or Input buffer) of each input it packs") << ".\n{\n  using namespace Halide;\n";
  declare(os, "Var", vars_);
  declare(os, "RVar", rvars_);
  os << body_.str() << "}\n";
  return os.str();
}

void Applier::mark_unscheduled_updates(const FuncSchedule& fs) {
  if (fs.stages.empty() || fs.compute.kind == ComputeLocation::Kind::kInline) return;
  Halide::Func f = funcs_.at(fs.func).func;
  for (int k = 1; k < static_cast<int>(funcs_.at(fs.func).names.stages.size()); ++k) {
    const bool listed = std::any_of(fs.stages.begin(), fs.stages.end(), [k](const StageSchedule& st) { return st.stage == k; });
    if (listed) continue;
    f.update(k - 1).unscheduled();
    body_ << "  " << fs.func << ".update(" << k - 1 << ").unscheduled();\n";
  }
}

void Applier::declare(std::ostream& os, const char* kind, const std::set<std::string>& loops) const {
  if (loops.empty()) return;
  os << "  " << kind;
  bool first = true;
  for (const std::string& halide_name : loops) {
    os << (first ? " " : ", ") << idents_.at(halide_name) << "(\"" << halide_name << "\")";
    first = false;
  }
  os << ";\n";
}

const subgraphs::StageLoopNames& Applier::stage_names(const std::string& func, int stage) const {
  const subgraphs::FuncNames& names = funcs_.at(func).names;
  if (stage < 0 || stage >= static_cast<int>(names.stages.size())) throw Halide::CompileError(func + " has no stage " + std::to_string(stage));
  return names.stages[stage];
}

bool Applier::is_rvar(const std::string& func, int stage, const Schedule* schedule, const std::string& loop) const {
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

Halide::VarOrRVar Applier::loop_var(const std::string& name, bool rvar) {
  const std::string halide_name = names_->halide(name);
  ident(name);  // named in the source from its first use on
  (rvar ? rvars_ : vars_).insert(halide_name);
  if (rvar) return Halide::VarOrRVar(Halide::RVar(halide_name));
  return Halide::VarOrRVar(Halide::Var(halide_name));
}

void Applier::apply_pack(const InputPack& pack, const Schedule& schedule) {
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

void Applier::apply_compute(const FuncSchedule& fs, const Schedule& schedule) {
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
      if (fs.compute.row_alignment > 0) align_rows(fs);
      break;
    }
  }
}

void Applier::apply_compute_with(const FuncSchedule& fs) {
  if (fs.compute_with.empty()) return;
  const auto sibling = funcs_.find(fs.compute_with.func);
  if (sibling == funcs_.end()) throw Halide::CompileError(fs.func + " is computed with unknown Func \"" + fs.compute_with.func + "\"");
  names_ = &stage_names(fs.compute_with.func, 0);
  funcs_.at(fs.func).func.compute_with(Halide::LoopLevel(sibling->second.func, loop_var(fs.compute_with.loop, false), 0));
  body_ << "  " << fs.func << ".compute_with(" << fs.compute_with.func << ", " << ident(fs.compute_with.loop) << ");\n";
}

void Applier::fold_rows(const FuncSchedule& fs) {
  const FuncAnalysis* fa = analysis_.find(fs.func);
  if (!fa || fa->args.size() < 2) throw Halide::CompileError(fs.func + ": fold_rows needs a second dimension");
  names_ = &stage_names(fs.func, 0);
  funcs_.at(fs.func).func.fold_storage(loop_var(fa->args[1], false).var, static_cast<int>(fs.compute.fold_rows));
  body_ << "  " << fs.func << ".fold_storage(" << ident(fa->args[1]) << ", " << fs.compute.fold_rows << ");\n";
}

void Applier::align_rows(const FuncSchedule& fs) {
  const FuncAnalysis* fa = analysis_.find(fs.func);
  if (!fa || fa->args.empty()) throw Halide::CompileError(fs.func + ": row_alignment needs a first dimension");
  names_ = &stage_names(fs.func, 0);
  funcs_.at(fs.func).func.align_storage(loop_var(fa->args[0], false).var, static_cast<int>(fs.compute.row_alignment));
  body_ << "  " << fs.func << ".align_storage(" << ident(fa->args[0]) << ", " << fs.compute.row_alignment << ");\n";
}

void Applier::align_rounded_extents(const FuncSchedule& fs) {
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

void Applier::apply_storage(const FuncSchedule& fs) {
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

void Applier::apply_stage(const FuncSchedule& fs, const StageSchedule& st) {
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

void Applier::split(Halide::Stage s, const std::string& label, const LoopSplit& sp, bool r) {
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

void Applier::reorder(Halide::Stage s, const std::string& label, const std::vector<std::string>& loops, const IsRVar& rvar) {
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

void Applier::map_gpu(Halide::Stage s, const std::string& label, const std::vector<std::string>& loops, bool blocks,
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

void Applier::apply_gpu(Halide::Func f, Halide::Stage s, const std::string& func, const std::string& label,
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

}  // namespace ktune::scheduler
