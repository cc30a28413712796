// Structure: every Func of the analysis is scheduled exactly once, stages exist, splits
// name existing loops with factors no larger than the loop (and split an earlier split's
// inner piece only into whole scalar parts), orders are permutations that
// keep the reduction loops in their original relative order, the parallel loops are the
// outermost ones, and the vectorized loop is the innermost one. A split's tail strategy is
// one its loop allows (scheduler/tail_strategy.h).
#include <set>

#include "scheduler/loop_nest.h"
#include "scheduler/tail_strategy.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// Reduction pieces keep their original relative order: Halide reorders the RVars of an
// update only when it is associative (f = f + e, *, min, max), where the order cannot change
// the result, e.g. a convolution's input channels outside its window.
std::optional<std::string> check_reduction_order(const LoopNest& nest, const StageAnalysis& sa) {
  std::vector<std::string> origins;  // origins of reduction pieces, innermost first
  std::vector<bool> outer;           // whether the piece is an outer piece
  for (const NestLoop& l : nest.loops) {
    if (!l.is_reduction) continue;
    origins.push_back(l.origin);
    outer.push_back(!l.innermost_piece);
  }
  // Expected: for each original reduction loop (innermost first), its pieces inner to outer.
  std::vector<std::string> expected;
  for (const LoopAnalysis& l : sa.loops) {
    if (!l.is_reduction) continue;
    for (const NestLoop& n : nest.loops) {
      if (n.origin == l.name && n.is_reduction) expected.push_back(l.name);
    }
  }
  if (origins != expected && !sa.rfactor_ok) return "reduction loops are reordered relative to each other";
  for (size_t i = 0; i + 1 < origins.size(); ++i) {
    if (origins[i] == origins[i + 1] && outer[i] && !outer[i + 1]) {
      return "an outer reduction piece is inside its inner piece";
    }
  }
  return std::nullopt;
}

// True when `split` cuts the inner piece of `earlier` into whole parts that stay scalar (a
// strip's rows walked in aligned pairs): with no guard to lose and no tail of its own, the
// miscompile below cannot happen.
bool splits_inner_piece_evenly(const LoopSplit& earlier, const LoopSplit& split, const StageSchedule& st) {
  return earlier.tail != Tail::kGuard && earlier.factor % split.factor == 0 && st.vectorize != split.inner &&
         st.vectorize != split.outer;
}

// The splits of stage `st`: tail strategies its loops allow, an earlier split's inner piece
// split again only evenly, factors no larger than the loop when the split applies;
// rfactor's splits keep the guard tail.
std::optional<std::string> check_splits(const Schedule& s, const Analysis& a, const FuncAnalysis& fa,
                                        const FuncSchedule& f, const StageSchedule& st) {
  if (st.rfactor) {
    for (const LoopSplit& split : st.rfactor->splits) {
      if (split.tail != Tail::kGuard) return "the splits of an rfactor intermediate keep the guard tail";
    }
  }
  for (const LoopSplit& split : st.splits) {
    if (auto refusal = tail_refusal(a, s, fa, f, st, split)) return *refusal;
    // Halide 14 loses the bounds guard of a split whose inner piece is split again
    // (and vectorized): the result reads and writes outside the Func's region.
    for (const LoopSplit& earlier : st.splits) {
      if (&earlier == &split) break;
      if (earlier.inner == split.loop && !splits_inner_piece_evenly(earlier, split, st)) {
        return "\"" + split.loop + "\" is the inner piece of an earlier split and cannot be split again" +
               " (only into whole scalar parts of a split without a guard)";
      }
    }
    // The loop being split had this extent when the split was applied.
    StageSchedule before = st;
    before.order.clear();
    before.splits.assign(st.splits.begin(), st.splits.begin() + (&split - st.splits.data()));
    std::string e2;
    const auto prior = build_loop_nest(fa.stages[st.stage], before, &e2);
    const NestLoop* parent = prior ? prior->find(split.loop) : nullptr;
    if (parent && split.factor > parent->extent) {
      return "split factor " + std::to_string(split.factor) + " exceeds the extent " +
             std::to_string(parent->extent) + " of \"" + split.loop + "\"";
    }
  }
  return std::nullopt;
}

// Parallel loops outermost, the vectorized loop innermost, unrolled loops that exist, and
// no loop marked twice.
std::optional<std::string> check_marked_loops(const LoopNest& nest, const StageSchedule& st) {
  const int n = static_cast<int>(nest.loops.size());
  for (size_t i = 0; i < st.parallel.size(); ++i) {
    if (nest.position(st.parallel[i]) != n - 1 - static_cast<int>(i)) {
      return "parallel loops must be the outermost loops, outermost first (\"" + st.parallel[i] + "\" is not)";
    }
  }
  if (!st.vectorize.empty()) {
    const int p = nest.position(st.vectorize);
    if (p < 0) return "vectorized loop \"" + st.vectorize + "\" does not exist";
    // After a CPU rfactor the vectorized pure loop is moved inside the loop over u.
    const bool cpu_rfactor = st.rfactor && !st.rfactor->on_gpu();
    // A vectorized reduction piece (vector_reduce) sits inside it.
    const bool reduce_inside = !st.vector_reduce.empty() && nest.position(st.vector_reduce) == 0 && p == 1;
    if (p != 0 && !cpu_rfactor && !reduce_inside) {
      return "the vectorized loop \"" + st.vectorize + "\" must be innermost";
    }
    for (const std::string& par : st.parallel) {
      if (par == st.vectorize) return "a loop cannot be both parallel and vectorized";
    }
  }
  std::set<std::string> unrolled;
  for (const std::string& u : st.unroll) {
    if (nest.position(u) < 0) return "unrolled loop \"" + u + "\" does not exist";
    if (u == st.vectorize) return "a loop cannot be both vectorized and unrolled";
    for (const std::string& par : st.parallel) {
      if (par == u) return "a loop cannot be both parallel and unrolled";
    }
    if (!unrolled.insert(u).second) return "\"" + u + "\" is unrolled twice";
  }
  return std::nullopt;
}

// One stage of Func `f`, its index already checked: its loop nest builds, then its splits,
// reduction order and marked loops.
std::optional<std::string> check_stage(const Schedule& s, const Analysis& a, const FuncAnalysis& fa,
                                       const FuncSchedule& f, const StageSchedule& st) {
  std::string error;
  const auto nest = build_loop_nest(fa.stages[st.stage], st, &error);
  const std::string where = f.func + " stage " + std::to_string(st.stage) + ": ";
  if (!nest) return where + error;
  if (auto e = check_splits(s, a, fa, f, st)) return where + *e;
  if (auto e = check_reduction_order(*nest, fa.stages[st.stage])) return where + *e;
  if (auto e = check_marked_loops(*nest, st)) return where + *e;
  return std::nullopt;
}

class StructureValidator : public Validator {
 public:
  std::string_view name() const override { return "structure"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    if (s.funcs.size() != a.funcs.size()) {
      return "schedules " + std::to_string(s.funcs.size()) + " Funcs, the algorithm has " + std::to_string(a.funcs.size());
    }
    std::set<std::string> seen;
    for (const FuncSchedule& f : s.funcs) {
      const FuncAnalysis* fa = a.find(f.func);
      if (!fa) return "unknown Func \"" + f.func + "\"";
      if (!seen.insert(f.func).second) return "Func \"" + f.func + "\" is scheduled twice";
      if (f.compute.kind == ComputeLocation::Kind::kInline && !f.stages.empty()) {
        return f.func + ": an inlined Func has no loops to schedule";
      }
      int last_stage = -1;
      for (const StageSchedule& st : f.stages) {
        if (st.stage <= last_stage || st.stage >= static_cast<int>(fa->stages.size())) {
          return f.func + ": stage " + std::to_string(st.stage) + " does not exist or is listed out of order";
        }
        last_stage = st.stage;
        if (auto e = check_stage(s, a, *fa, f, st)) return e;
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_structure_validator() { return std::make_unique<StructureValidator>(); }

}  // namespace ktune::scheduler
