#include "scheduler/gpu_rfactor.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace ktune::scheduler {
namespace {

constexpr int64_t kMinRowFactor = 32;     // rows: u is a whole block of threads
constexpr int64_t kMinColumnFactor = 8;   // columns: u sits beside 32 or more x-threads
constexpr int kUnknownSmCount = 80;

struct StageLoops {
  std::vector<const LoopAnalysis*> pure, reduction;  // innermost first
};

StageLoops loops_of(const StageAnalysis& sa) {
  StageLoops out;
  for (const LoopAnalysis& l : sa.loops) (l.is_reduction ? out.reduction : out.pure).push_back(&l);
  return out;
}

int sm_count(const TargetInfo& t) { return t.sm_count > 0 ? t.sm_count : kUnknownSmCount; }

// Whether the columns variant applies: a column reduction over enough columns to split off
// a warp's worth of x-threads.
bool columns(const FuncAnalysis& fa, const StageAnalysis& sa, const StageLoops& loops) {
  return reduces_across_columns(fa, sa) && loops.pure[0]->extent > 32;
}

}  // namespace

bool gpu_rfactor_fits(const FuncAnalysis& fa, const StageAnalysis& sa) {
  if (sa.stage == 0 || !sa.rfactor_ok) return false;
  const StageLoops loops = loops_of(sa);
  if (loops.reduction.empty() || loops.pure.empty() || loops.pure.size() > 3) return false;
  // The intermediate's pure variables are the Func's: the update must be over them alone.
  if (loops.pure.size() != fa.args.size()) return false;
  for (const LoopAnalysis* l : loops.pure) {
    if (std::find(fa.args.begin(), fa.args.end(), l->name) == fa.args.end()) return false;
    if (l->name == "u" || l->carries_dependence) return false;
  }
  // The remaining stage needs a block loop: a second pure loop, or a split of the only one.
  if (loops.pure.size() == 1 && loops.pure[0]->extent < 3) return false;
  const int64_t min_factor = columns(fa, sa, loops) ? kMinColumnFactor : kMinRowFactor;
  return loops.reduction[0]->extent >= 2 * min_factor;
}

bool reduces_across_columns(const FuncAnalysis& fa, const StageAnalysis& sa) {
  const StageLoops loops = loops_of(sa);
  if (loops.pure.empty() || loops.reduction.empty()) return false;
  int rows = 0, cols = 0;
  for (const ProducerUse& use : sa.uses) {
    if (use.name == fa.name) continue;  // the stage's own accumulator
    const auto has = [&](const LoopAnalysis* l) {
      return std::find(use.contiguous_loops.begin(), use.contiguous_loops.end(), l->name) != use.contiguous_loops.end();
    };
    if (has(loops.reduction[0])) {
      ++rows;
    } else if (has(loops.pure[0])) {
      ++cols;
    }
  }
  return cols > 0 && rows == 0;
}

bool gpu_reduction_starved(const FuncAnalysis& fa, const StageAnalysis& sa, const TargetInfo& t) {
  if (!gpu_rfactor_fits(fa, sa)) return false;
  return sa.pure_iterations() < static_cast<int64_t>(sm_count(t)) * t.max_threads_per_block;
}

bool gpu_reduction_clearly_starved(const FuncAnalysis& fa, const StageAnalysis& sa, const TargetInfo& t) {
  if (!gpu_rfactor_fits(fa, sa)) return false;
  const StageLoops loops = loops_of(sa);
  return sa.pure_iterations() < static_cast<int64_t>(sm_count(t)) * 256 && loops.reduction[0]->extent >= 1024;
}

GpuRFactorChoice heuristic_gpu_rfactor(const FuncAnalysis& fa, const StageAnalysis& sa, const TargetInfo& t) {
  const StageLoops loops = loops_of(sa);
  const int64_t r = loops.reduction[0]->extent;
  GpuRFactorChoice c;
  if (columns(fa, sa, loops)) {
    c.threads_x = 32;
    c.factor = kMinColumnFactor;
    for (int64_t f : {16, 32}) {
      if (8 * f <= r && c.threads_x * f <= t.max_threads_per_block) c.factor = f;
    }
  } else if (r >= 2048 && 256 <= t.max_threads_per_block) {
    c.factor = 256;
  } else if (r >= 1024 && 128 <= t.max_threads_per_block) {
    c.factor = 128;
  } else {
    c.factor = kMinRowFactor;
    for (int64_t f : {64, 128, 256}) {
      if (8 * f <= r && f <= t.max_threads_per_block) c.factor = f;
    }
  }
  c.final_threads = 64;
  return c;
}

GpuRFactorChoice sampled_gpu_rfactor(const FuncAnalysis& fa, const StageAnalysis& sa, const TargetInfo& t, Rng& rng) {
  const StageLoops loops = loops_of(sa);
  const int64_t r = loops.reduction[0]->extent;
  const int64_t max_threads = t.max_threads_per_block;
  GpuRFactorChoice c;
  std::vector<std::pair<int64_t, int64_t>> shapes;  // (threads_x, factor)
  if (columns(fa, sa, loops)) {
    for (int64_t tx : {16, 32, 64}) {
      for (int64_t f : {8, 16, 32}) {
        if (tx < loops.pure[0]->extent && 2 * f <= r && tx * f <= max_threads) shapes.emplace_back(tx, f);
      }
    }
  } else {
    for (int64_t f : {32, 64, 128, 256}) {
      if (2 * f <= r && f <= max_threads) shapes.emplace_back(0, f);
    }
  }
  if (!shapes.empty()) std::tie(c.threads_x, c.factor) = rng.pick(shapes);
  std::vector<int64_t> finals;
  for (int64_t n : {32, 64, 128, 256}) {
    if (n <= max_threads) finals.push_back(n);
  }
  if (!finals.empty()) c.final_threads = rng.pick(finals);
  return c;
}

StageSchedule make_gpu_rfactor_stage(const StageAnalysis& sa, const GpuRFactorChoice& c) {
  StageSchedule st;
  st.stage = sa.stage;
  const StageLoops loops = loops_of(sa);
  if (loops.pure.empty() || loops.reduction.empty()) return st;
  const LoopAnalysis& r = *loops.reduction[0];
  const LoopAnalysis& x = *loops.pure[0];

  // The innermost reduction loop split once; its inner piece becomes u.
  st.splits.push_back({r.name, loop_piece(r.name, "_o"), loop_piece(r.name, "_i"), c.factor});
  RFactor rf;
  rf.loop = loop_piece(r.name, "_i");
  if (c.threads_x >= 2 && c.threads_x < x.extent) {
    rf.splits.push_back({x.name, loop_piece(x.name, "_o"), loop_piece(x.name, "_i"), c.threads_x});
    rf.gpu.threads = {loop_piece(x.name, "_i"), "u"};
    rf.gpu.blocks = {loop_piece(x.name, "_o")};
  } else {
    rf.gpu.threads = {"u"};
    rf.gpu.blocks = {x.name};
  }
  for (size_t i = 1; i < loops.pure.size(); ++i) rf.gpu.blocks.push_back(loops.pure[i]->name);
  st.rfactor = rf;

  // What remains reduces over u: threads along the innermost pure loop, blocks outside.
  // Halide's order stays (the reduction over u is innermost), so the pieces are adjacent.
  const int64_t n = c.final_threads;
  if (n >= 2 && n < x.extent) {
    st.splits.push_back({x.name, loop_piece(x.name, "_o"), loop_piece(x.name, "_i"), n});
    st.gpu.threads = {loop_piece(x.name, "_i")};
    st.gpu.blocks = {loop_piece(x.name, "_o")};
  } else if (loops.pure.size() > 1) {
    st.gpu.threads = {x.name};
  } else {
    // A single short pure loop: split in two so that there is a block loop.
    int64_t f = 1;
    while (f * 2 < x.extent) f *= 2;
    st.splits.push_back({x.name, loop_piece(x.name, "_o"), loop_piece(x.name, "_i"), f});
    st.gpu.threads = {loop_piece(x.name, "_i")};
    st.gpu.blocks = {loop_piece(x.name, "_o")};
  }
  for (size_t i = 1; i < loops.pure.size(); ++i) st.gpu.blocks.push_back(loops.pure[i]->name);
  return st;
}

std::optional<LoopNest> intermediate_loop_nest(const StageAnalysis& sa, const StageSchedule& st, std::string* error) {
  if (!st.rfactor) {
    *error = "the stage is not split with rfactor";
    return std::nullopt;
  }
  const auto nest = build_loop_nest(sa, st, error);
  if (!nest) return std::nullopt;
  const NestLoop* r = nest->find(st.rfactor->loop);
  if (!r || !r->is_reduction) {
    *error = "rfactor loop \"" + st.rfactor->loop + "\" is not a reduction loop";
    return std::nullopt;
  }
  StageAnalysis intermediate;
  for (const LoopAnalysis& l : sa.loops) {
    if (!l.is_reduction) intermediate.loops.push_back({l.name, l.extent, false, false});
  }
  intermediate.loops.push_back({"u", r->extent, false, false});
  StageSchedule splits;
  splits.splits = st.rfactor->splits;
  std::string e;
  auto out = build_loop_nest(intermediate, splits, &e);
  if (!out) *error = "rfactor intermediate: " + e;
  return out;
}

}  // namespace ktune::scheduler
